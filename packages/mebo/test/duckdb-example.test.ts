// examples/duckdb as a user runs it: the example copied into a fresh
// temporary directory outside the repository, its dependencies installed
// with `mebo` from `npm pack` of this package, bundled by its build script,
// blobs written with the installed CLI from the real series of testdata/real
// as its README says, served by its serve.mjs on 127.0.0.1 and opened in
// Chromium. The tables the page shows (DuckDB's answers) must equal a plain
// computation over the same blobs decoded here: counts, maxima and times
// exactly, averages within 1e-9 relative. A fourth blob, the CO2 series, is
// one the example does not name (its id shows in hex) and has NaN gaps, which
// reach DuckDB as NaN. A set with a truncated blob must show that blob's
// MeboError code and no table.

import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { init, MeboError, NumericBlob } from '../src/entries/index.js';
import { launchChromium } from './helpers/chromium.js';
import { MINUTES, packSdk, run } from './helpers/tarball.js';
import { REPO_ROOT } from './helpers/vectors.js';

const EXAMPLE = join(REPO_ROOT, 'examples/duckdb');
/** The real series, each to one blob: the README's three with its CLI options, and one main.js does not name. */
const SERIES: { file: string; blob: string; options: string[]; named: boolean }[] = [
  { file: 'seattle-hourly-normals.json', blob: 'seattle.mebo', options: ['--config', 'deltapacked-none-alp-none'], named: true },
  { file: 'usgs-earthquakes-week.json', blob: 'quakes.mebo', options: ['--config', 'auto'], named: true },
  { file: 'stocks-monthly.json', blob: 'stocks.mebo', options: [], named: true },
  { file: 'maunaloa-co2-weekly.json', blob: 'co2.mebo', options: ['--config', 'delta-none-alp-none'], named: false },
];
/** What main.js asks: its THRESHOLD, BUCKET_METRICS (as a prefix) and BUCKET. */
const THRESHOLD = 100;
const BUCKET_PREFIX = 'seattle.normals.';
const BUCKET_MICROS = 7n * 86_400_000_000n;
/** time_bucket's default origin for buckets of days: Monday 2000-01-03 00:00 UTC. */
const BUCKET_ORIGIN = BigInt(Date.UTC(2000, 0, 3)) * 1000n;

let root = '';
let dir = '';
let browser: Browser | undefined;
const servers: ChildProcess[] = [];

beforeAll(async () => {
  await init();
  root = realpathSync(mkdtempSync(join(tmpdir(), 'mebo-duckdb-example-')));
  if (root.startsWith(REPO_ROOT + sep)) throw new Error(`${root} is inside the repository`);
  mkdirSync(join(root, 'pack'));
  const { tarball } = await packSdk(join(root, 'pack'));
  dir = join(root, 'duckdb');
  cpSync(EXAMPLE, dir, { recursive: true, filter: (source) => !/[/\\](node_modules|dist|blobs)$/.test(source) });
  await run('npm', ['install', '--no-package-lock', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], { cwd: dir, timeout: 5 * MINUTES });
  await run('npm', ['run', 'build', '--silent'], { cwd: dir });
  mkdirSync(join(dir, 'blobs'));
  for (const s of SERIES) {
    await run('npx', ['--no', 'mebo', 'encode', join(REPO_ROOT, 'testdata/real', s.file), '-o', join('blobs', s.blob), ...s.options], { cwd: dir });
  }
  browser = await launchChromium();
}, 8 * MINUTES);

afterAll(async () => {
  for (const server of servers) if (server.exitCode === null) server.kill('SIGTERM');
  await browser?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The example's serve.mjs over `folder` on a free port; its URL. */
async function serve(folder: string): Promise<string> {
  const server = spawn(process.execPath, ['serve.mjs', folder, '0'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  servers.push(server);
  let output = '';
  return new Promise((resolve, reject) => {
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /^(http:\/\/127\.0\.0\.1:\d+\/)/m.exec(output);
      if (url) resolve(url[1]!);
    });
    server.on('exit', (code) => reject(new Error(`serve.mjs exited (${code}): ${output}`)));
  });
}

interface Shown {
  state: string;
  status: string;
  tables: Record<string, { columns: string[]; rows: string[][] }>;
  error: { code: string | undefined; text: string } | null;
}

/** Open the page and read what it shows once it is done; a page error, a console error or an HTTP error fails. */
async function shown(url: string): Promise<Shown> {
  const context = await browser!.newContext();
  try {
    const tab = await context.newPage();
    const problems: string[] = [];
    tab.on('pageerror', (error) => problems.push(String(error)));
    tab.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    tab.on('response', (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()} for ${response.url()}`);
    });
    await tab.goto(url, { timeout: 30_000 });
    await tab.waitForFunction(() => document.body.dataset.state !== undefined || document.querySelector('#error') !== null, undefined, { timeout: 2 * MINUTES });
    const page = await tab.evaluate(() => ({
      state: document.body.dataset.state ?? '',
      status: document.querySelector('#status')?.textContent ?? '',
      tables: Object.fromEntries(
        Array.from(document.querySelectorAll('table'), (t) => [
          t.dataset.question ?? '',
          {
            columns: Array.from(t.tHead!.rows[0]!.cells, (c) => c.textContent ?? ''),
            rows: Array.from(t.tBodies[0]!.rows, (r) => Array.from(r.cells, (c) => c.textContent ?? '')),
          },
        ]),
      ),
      error: (() => {
        const p = document.querySelector<HTMLElement>('#error');
        return p === null ? null : { code: p.dataset.code, text: p.textContent ?? '' };
      })(),
    }));
    expect(problems, `${url}: page errors, console errors, HTTP errors`).toEqual([]);
    return page;
  } finally {
    await context.close();
  }
}

// ---------------------------------------------------------------- the plain computation

interface Point {
  metric: string;
  ts: bigint;
  value: number;
}

/** Every point of the blobs, decoded by the SDK in Node, labelled as the page labels them: a named series' names, else the id in hex. */
function pointsOf(folder: string): Point[] {
  const names = new Map<bigint, string>();
  for (const s of SERIES) {
    const input = JSON.parse(readFileSync(join(REPO_ROOT, 'testdata/real', s.file), 'utf8')) as { metrics: { name: string; id: string }[] };
    for (const m of input.metrics) names.set(BigInt(`0x${m.id}`), s.named ? m.name : m.id.toLowerCase().padStart(16, '0'));
  }
  const points: Point[] = [];
  for (const file of readdirSync(folder).sort()) {
    using blob = NumericBlob.from(readFileSync(join(folder, file)));
    const { ids, offsets, timestamps, values } = blob.decodeAll();
    for (let m = 0; m < ids.length; m++) {
      for (let i = offsets[m]!; i < offsets[m + 1]!; i++) points.push({ metric: names.get(ids[m]!)!, ts: timestamps[i]!, value: values[i]! });
    }
  }
  return points;
}

interface Aggregate {
  points: number;
  sum: number;
  max: number;
  first: bigint;
}

/** DuckDB's order of doubles: NaN above every number. */
const above = (a: number, b: number): boolean => (Number.isNaN(a) ? !Number.isNaN(b) : a > b);

/** Points grouped by a key (sorted as DuckDB's ORDER BY sorts ASCII text), counted, summed, their maximum (NaN when any is) and first time. */
function aggregate(points: Point[], key: (p: Point) => string | undefined): [string, Aggregate][] {
  const groups = new Map<string, Aggregate>();
  for (const p of points) {
    const k = key(p);
    if (k === undefined) continue;
    const g = groups.get(k);
    if (g === undefined) groups.set(k, { points: 1, sum: p.value, max: p.value, first: p.ts });
    else {
      g.points++;
      g.sum += p.value;
      if (above(p.value, g.max)) g.max = p.value;
      if (p.ts < g.first) g.first = p.ts;
    }
  }
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** µs since the epoch as the page shows them: ISO 8601 with six decimals. */
function iso(micros: bigint): string {
  const ms = micros >= 0n ? micros / 1000n : -((-micros + 999n) / 1000n);
  return new Date(Number(ms)).toISOString().replace('Z', `${String(micros - ms * 1000n).padStart(3, '0')}Z`);
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return q * b > a ? q - 1n : q;
}

/** An average the page shows: within 1e-9 relative of the plain one (NaN when a NaN was summed). */
function expectAverage(shownText: string, sum: number, count: number, what: string): void {
  const want = sum / count;
  if (Number.isNaN(want)) return expect(shownText, what).toBe('NaN');
  const got = Number(shownText);
  expect(Math.abs(got - want), `${what}: average ${shownText}, plain ${want}`).toBeLessThanOrEqual(1e-9 * Math.abs(want));
}

// ---------------------------------------------------------------- the tests

/** The per-metric table's row of a metric. */
function t1Row(page: Shown, metric: string): string[] | undefined {
  return page.tables['per-metric']!.rows.find((r) => r[0] === metric);
}

describe('examples/duckdb in Chromium, from the packed tarball', () => {
  it('answers each question as a plain computation over the same blobs does', async () => {
    const started = performance.now();
    const page = await shown(await serve('blobs'));
    expect(page.error).toBeNull();
    expect(page.state).toBe('done');
    expect(page.status).toMatch(/^4 blobs, 12738 points, queried by DuckDB v1\.\d+/);
    expect(Object.keys(page.tables)).toEqual(['per-metric', 'above-threshold', 'buckets']);
    const points = pointsOf(join(dir, 'blobs'));
    // The blobs hold the series' inputs: every metric, named.
    expect(points.every((p) => p.metric !== undefined)).toBe(true);

    const perMetric = aggregate(points, (p) => p.metric);
    expect(perMetric.length).toBe(11);
    // The unnamed CO2 series: its id in hex, and its 59 gaps NaN in DuckDB too.
    expect(perMetric[0]![0]).toBe('5503348f60f8d740');
    expect(t1Row(page, '5503348f60f8d740')).toEqual(['5503348f60f8d740', '2284', 'NaN', 'NaN']);
    expect(points.filter((p) => Number.isNaN(p.value)).length).toBe(59);
    const t1 = page.tables['per-metric']!;
    expect(t1.columns).toEqual(['metric', 'points', 'average', 'maximum']);
    expect(t1.rows.map((r) => r[0])).toEqual(perMetric.map(([k]) => k));
    perMetric.forEach(([metric, g], i) => {
      const [, count, average, maximum] = t1.rows[i]!;
      expect(count, metric).toBe(String(g.points));
      expectAverage(average!, g.sum, g.points, metric);
      expect(maximum, metric).toBe(String(g.max));
    });

    // `value > THRESHOLD` as DuckDB compares: a NaN is above it.
    const aboveThreshold = aggregate(
      points.filter((p) => above(p.value, THRESHOLD)),
      (p) => p.metric,
    );
    expect(aboveThreshold.length).toBeGreaterThan(0);
    expect(aboveThreshold.length).toBeLessThan(perMetric.length);
    const t2 = page.tables['above-threshold']!;
    expect(t2.columns).toEqual(['metric', 'points_above', 'first_above']);
    expect(t2.rows).toEqual(aboveThreshold.map(([metric, g]) => [metric, String(g.points), iso(g.first)]));
    expect(t2.rows[0]).toEqual(['5503348f60f8d740', '2284', '1958-03-29T00:00:00.000000Z']);

    const buckets = aggregate(points, (p) =>
      p.metric.startsWith(BUCKET_PREFIX) ? `${p.metric} ${iso(BUCKET_ORIGIN + floorDiv(p.ts - BUCKET_ORIGIN, BUCKET_MICROS) * BUCKET_MICROS)}` : undefined,
    );
    // 2010-01-01 (a Friday) to 03-31: per metric the 14 weeks from Monday 2009-12-28 to Monday 03-29.
    expect(buckets.length).toBe(3 * 14);
    expect(buckets[0]![0]).toBe('seattle.normals.pressure 2009-12-28T00:00:00.000000Z');
    const t3 = page.tables.buckets!;
    expect(t3.columns).toEqual(['metric', 'bucket', 'points', 'average', 'maximum']);
    expect(t3.rows.map((r) => `${r[0]} ${r[1]}`)).toEqual(buckets.map(([k]) => k));
    buckets.forEach(([key, g], i) => {
      const [, , count, average, maximum] = t3.rows[i]!;
      expect(count, key).toBe(String(g.points));
      expectAverage(average!, g.sum, g.points, key);
      expect(maximum, key).toBe(String(g.max));
    });
    console.log(
      `[duckdb example] ${points.length} points in ${SERIES.length} blobs: DuckDB in Chromium answered ${t1.rows.length} + ${t2.rows.length} + ${t3.rows.length} rows as the plain computation; ` +
        `page ${Math.round(performance.now() - started)} ms`,
    );
  }, 3 * MINUTES);

  it('a truncated blob among them: its MeboError code in the page, and no table', async () => {
    const bad = join(root, 'blobs-with-a-bad-one');
    mkdirSync(bad);
    for (const s of SERIES) copyFileSync(join(dir, 'blobs', s.blob), join(bad, s.blob));
    const whole = readFileSync(join(dir, 'blobs', 'quakes.mebo'));
    writeFileSync(join(bad, 'quakes-truncated.mebo'), whole.subarray(0, whole.length >> 1));
    // What the SDK says of that blob here.
    let expected: MeboError | undefined;
    try {
      NumericBlob.from(readFileSync(join(bad, 'quakes-truncated.mebo'))).free();
    } catch (error) {
      if (error instanceof MeboError) expected = error;
    }
    expect(expected, 'the SDK refuses the truncated blob with a MeboError').toBeInstanceOf(MeboError);
    const page = await shown(await serve(bad));
    expect(page.state).toBe('error');
    expect(page.tables).toEqual({});
    expect(page.status).toBe('');
    expect(page.error?.code).toBe(expected!.code);
    expect(page.error?.text).toContain('blobs/quakes-truncated.mebo');
    expect(page.error?.text.startsWith(`MeboError ${expected!.code}: `), page.error?.text).toBe(true);
  }, 3 * MINUTES);
});
