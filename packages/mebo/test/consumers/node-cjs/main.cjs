// A CommonJS service: require('mebo'), require('mebo/decode'),
// require('mebo/worker') and require('mebo/arrow') (over apache-arrow's
// CommonJS build), run without require(esm) (Node 20 before 20.19 has none;
// `--no-experimental-require-module` turns it off where it is on). Decodes
// the blobs named on the command line (`name=path`) with both entries, with a
// pool of worker threads and into Arrow tables, and prints one JSON line.
// decode-document.mjs (copied beside this file) is loaded by import(), as
// CommonJS code loads ESM; it gets the required modules handed in.

const { readFileSync } = require('node:fs');
const mebo = require('mebo');
const decodeOnly = require('mebo/decode');
const { DecodePool } = require('mebo/worker');
const { toArrow } = require('mebo/arrow');

const hex16 = (v) => v.toString(16).padStart(16, '0');

/** decodeAll's columns as the vectors' input schema: per metric, timestamps and value bits or texts. */
function columnsDocument(c) {
  const metrics = [];
  for (let i = 0; i < c.ids.length; i++) {
    const from = c.offsets[i];
    const to = c.offsets[i + 1];
    const m = { id: hex16(c.ids[i]), timestamps: Array.from(c.timestamps.subarray(from, to), String) };
    if (c.values instanceof Float64Array) m.values = Array.from(new BigUint64Array(c.values.buffer, c.values.byteOffset + from * 8, to - from), hex16);
    else m.texts = Array.from(c.codes.subarray(from, to), (code) => c.dictionary[code]);
    metrics.push(m);
  }
  return metrics;
}

/** An Arrow table from toArrow as the same per-metric schema (its rows come grouped by metric). */
function tableDocument(table) {
  const ids = table.getChild('metric_id').toArray();
  const timestamps = table.getChild('ts').toArray();
  const value = table.getChild('value');
  const floats = value.toArray();
  const metrics = [];
  for (let row = 0; row < table.numRows; row++) {
    const id = hex16(ids[row]);
    if (metrics.length === 0 || metrics[metrics.length - 1].id !== id) {
      metrics.push(floats instanceof Float64Array ? { id, timestamps: [], values: [] } : { id, timestamps: [], texts: [] });
    }
    const m = metrics[metrics.length - 1];
    m.timestamps.push(String(timestamps[row]));
    if (m.values) m.values.push(hex16(new BigUint64Array(floats.buffer, floats.byteOffset + row * 8, 1)[0]));
    else m.texts.push(value.get(row));
  }
  return metrics;
}

async function main() {
  const { decodeSample } = await import('./decode-document.mjs');
  const sample = process.argv.slice(2).map((arg) => {
    const eq = arg.indexOf('=');
    return { name: arg.slice(0, eq), bytes: new Uint8Array(readFileSync(arg.slice(eq + 1))) };
  });
  await mebo.init();
  await decodeOnly.init();
  const pool = await DecodePool.create({ size: 2 });
  const pooled = {};
  try {
    for (const { name, bytes } of sample) pooled[name] = columnsDocument(await pool.decodeAll(bytes));
  } finally {
    pool.terminate();
  }
  const arrow = {};
  for (const { name, bytes } of sample) {
    const blob = mebo.blobKind(bytes) === 'text' ? mebo.TextBlob.from(bytes) : mebo.NumericBlob.from(bytes);
    try {
      arrow[name] = tableDocument(toArrow(blob));
    } finally {
      blob.free();
    }
  }
  let refused;
  try {
    mebo.NumericBlob.from(new Uint8Array(8));
  } catch (error) {
    refused = { isMeboError: error instanceof mebo.MeboError, code: error.code };
  }
  console.log(
    JSON.stringify({
      node: process.version,
      requireModule: process.features.require_module ?? false,
      resolved: { mebo: require.resolve('mebo'), decode: require.resolve('mebo/decode'), worker: require.resolve('mebo/worker'), arrow: require.resolve('mebo/arrow') },
      info: mebo.wasmInfo(),
      decodeInfo: decodeOnly.wasmInfo(),
      mebo: decodeSample(mebo, sample).results,
      decode: decodeSample(decodeOnly, sample).results,
      pool: pooled,
      arrow,
      refused,
    }),
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
