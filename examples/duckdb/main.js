// SQL over mebo blobs in the browser: each blob is decoded by the mebo SDK,
// turned into an Arrow table (mebo/arrow), handed to DuckDB (duckdb-wasm) as
// Arrow IPC, and queried with SQL. The page fetches blobs.json (a list of blob
// URLs, written by serve.mjs) and shows each question's answer as a table.
//
// Built by esbuild (`npm run build`): with `--loader:.wasm=file` and
// `--loader:.worker.js=file` each .wasm or worker import below is the URL of
// a copy in dist/, relative to the bundle.

import * as duckdb from '@duckdb/duckdb-wasm';
import duckdbEhWasm from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm';
import duckdbEhWorker from '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js';
import duckdbMvpWasm from '@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm';
import duckdbMvpWorker from '@duckdb/duckdb-wasm/dist/duckdb-browser-mvp.worker.js';
import { tableToIPC } from 'apache-arrow';
import { init, MeboError, metricId, NumericBlob, simdSupported } from 'mebo';
import meboSimdWasm from 'mebo/wasm/mebo_simd.wasm';
import meboScalarWasm from 'mebo/wasm/mebo_scalar.wasm';
import { toArrow } from 'mebo/arrow';

// A numeric blob keys its metrics by the xxHash64 of their names (metricId):
// list the names you write under to see them in the answers; an id not
// listed shows as 16 hex digits.
const METRIC_NAMES = [
  'seattle.normals.pressure',
  'seattle.normals.temperature',
  'seattle.normals.wind',
  'usgs.quake.magnitude',
  'usgs.quake.depth_km',
  'stocks.msft.price',
  'stocks.amzn.price',
  'stocks.ibm.price',
  'stocks.goog.price',
  'stocks.aapl.price',
];
/** The "above a threshold" question's threshold. */
const THRESHOLD = 100;
/** The time-bucketed question's metrics (a SQL LIKE pattern) and bucket width. */
const BUCKET_METRICS = 'seattle.normals.%';
const BUCKET = '7 days';
/** The most points one blob may hold: a bigger (or hostile) one is refused before it is decoded. */
const MAX_POINTS = 10_000_000;

const asset = (path) => new URL(path, import.meta.url).href;

/** Every blob of the list, decoded and as Arrow tables; the first bad blob throws (a MeboError naming it). */
async function decodeBlobs(urls) {
  const simd = simdSupported();
  await init({ wasm: asset(simd ? meboSimdWasm : meboScalarWasm), variant: simd ? 'simd' : 'scalar' });
  const tables = [];
  for (const url of urls) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    let blob;
    try {
      blob = NumericBlob.from(bytes, { maxPoints: MAX_POINTS });
      // metric_id (uint64), ts (µs, UTC), value (float64); the table stays valid after free().
      tables.push({ url, table: toArrow(blob) });
    } catch (error) {
      if (error instanceof MeboError) throw new MeboError(error.code, `${url}: ${error.message}`, { cause: error });
      throw error;
    } finally {
      blob?.free();
    }
  }
  return tables;
}

/** DuckDB in a worker, the build the browser supports (exception handling or not). */
async function openDuckDB() {
  const bundle = await duckdb.selectBundle({
    mvp: { mainModule: asset(duckdbMvpWasm), mainWorker: asset(duckdbMvpWorker) },
    eh: { mainModule: asset(duckdbEhWasm), mainWorker: asset(duckdbEhWorker) },
  });
  const db = new duckdb.AsyncDuckDB(new duckdb.ConsoleLogger(duckdb.LogLevel.WARNING), new Worker(bundle.mainWorker));
  await db.instantiate(bundle.mainModule);
  return db;
}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

/**
 * The points of every blob as one view, `points(blob, metric, ts, value)`:
 * each blob's table goes in through Arrow IPC (whatever copy of apache-arrow
 * duckdb-wasm bundles reads the bytes), its ids named from METRIC_NAMES.
 */
async function loadPoints(conn, tables) {
  const parts = [];
  for (const [i, { url, table }] of tables.entries()) {
    await conn.insertArrowFromIPCStream(tableToIPC(table, 'stream'), { name: `blob_${i}`, create: true });
    parts.push(`SELECT ${sqlString(url)} AS blob, metric_id, ts, value FROM blob_${i}`);
  }
  const names = METRIC_NAMES.map((name) => `(${metricId(name)}::UBIGINT, ${sqlString(name)})`).join(', ');
  await conn.query(`CREATE TABLE metric_names (metric_id UBIGINT, name VARCHAR)`);
  await conn.query(`INSERT INTO metric_names VALUES ${names}`);
  // ts as a plain TIMESTAMP (UTC): time_bucket on a TIMESTAMP WITH TIME ZONE
  // needs the ICU extension, which duckdb-wasm does not load by default.
  await conn.query(`
    CREATE VIEW points AS
    SELECT blob, coalesce(n.name, lpad(lower(hex(p.metric_id)), 16, '0')) AS metric, make_timestamp(epoch_us(p.ts)) AS ts, p.value
    FROM (${parts.join(' UNION ALL ')}) p LEFT JOIN metric_names n USING (metric_id)`);
}

/** The questions: a title and the SQL. Timestamps come back as µs since the epoch (BIGINT). */
const QUESTIONS = [
  {
    id: 'per-metric',
    title: 'Points, average and maximum per metric',
    sql: `SELECT metric, count(*) AS points, avg(value) AS average, max(value) AS maximum
          FROM points GROUP BY metric ORDER BY metric`,
  },
  {
    id: 'above-threshold',
    title: `Metrics with points above ${THRESHOLD}: how many, and the first one`,
    sql: `SELECT metric, count(*) AS points_above, epoch_us(min(ts)) AS first_above
          FROM points WHERE value > ${THRESHOLD} GROUP BY metric ORDER BY metric`,
  },
  {
    id: 'buckets',
    title: `${BUCKET_METRICS} per ${BUCKET} (time_bucket)`,
    sql: `SELECT metric, epoch_us(time_bucket(INTERVAL '${BUCKET}', ts)) AS bucket, count(*) AS points, avg(value) AS average, max(value) AS maximum
          FROM points WHERE metric LIKE ${sqlString(BUCKET_METRICS)} GROUP BY ALL ORDER BY metric, bucket`,
  },
];

/** µs since the epoch in ISO 8601, to the microsecond. */
function isoMicros(micros) {
  const ms = micros >= 0n ? micros / 1000n : -((-micros + 999n) / 1000n);
  return new Date(Number(ms)).toISOString().replace('Z', `${String(micros - ms * 1000n).padStart(3, '0')}Z`);
}

/** A cell as text: integers exactly, floats as the shortest text that reads back the same, µs timestamps in ISO 8601. */
function cellText(column, value) {
  if (value === null || value === undefined) return '';
  if (column === 'bucket' || column === 'first_above') return isoMicros(BigInt(value));
  return String(value);
}

function tableElement(question, result) {
  const columns = result.schema.fields.map((f) => f.name);
  const table = document.createElement('table');
  table.dataset.question = question.id;
  const caption = table.createCaption();
  caption.textContent = question.title;
  const head = table.createTHead().insertRow();
  for (const name of columns) head.appendChild(document.createElement('th')).textContent = name;
  const body = table.createTBody();
  for (const row of result.toArray()) {
    const tr = body.insertRow();
    for (const name of columns) tr.insertCell().textContent = cellText(name, row[name]);
  }
  return table;
}

async function main() {
  const status = document.querySelector('#status');
  const results = document.querySelector('#results');
  try {
    const urls = await (await fetch('blobs.json')).json();
    if (urls.length === 0) throw new Error('blobs.json lists no blobs: give serve.mjs a folder with .mebo files');
    // Every blob decodes before any SQL runs: a bad one shows its error and no table.
    const tables = await decodeBlobs(urls);
    const rows = tables.reduce((n, t) => n + t.table.numRows, 0);
    status.textContent = `${tables.length} blobs, ${rows} points decoded; starting DuckDB…`;
    const db = await openDuckDB();
    const conn = await db.connect();
    await loadPoints(conn, tables);
    const shown = [];
    for (const question of QUESTIONS) shown.push(tableElement(question, await conn.query(question.sql)));
    results.replaceChildren(...shown);
    status.textContent = `${tables.length} blobs, ${rows} points, queried by DuckDB ${await db.getVersion()}`;
    document.body.dataset.state = 'done';
    await conn.close();
  } catch (error) {
    results.replaceChildren();
    const p = document.createElement('p');
    p.id = 'error';
    if (error instanceof MeboError) p.dataset.code = error.code;
    p.textContent = `${error instanceof MeboError ? `MeboError ${error.code}` : error.name}: ${error.message}`;
    status.replaceWith(p);
    document.body.dataset.state = 'error';
  }
}

main();
