// The stream sample: one real series of testdata/real (Seattle's hourly
// normals, 3 metrics × 2,160 hours) cut into 6-hour windows, a blob each,
// sent as one stream of blobs (`MBS1`, then each blob's u32 LE length and
// bytes: the SDK's frameBlobs). build.mjs writes it to
// dist/samples/seattle.mbs; the demo's server (`streamRoute`) answers
// GET /stream/seattle.mbs?seconds=S with the same blobs paced over S seconds,
// so that the page draws them as they arrive.

import { Readable } from 'node:stream';
import { join } from 'node:path';
import * as mebo from 'mebo';
import { ROOT, readNumericInput } from 'mebo-tooling/data';

export const STREAM_SOURCE = join(ROOT, 'testdata/real/seattle-hourly-normals.json');
/** A window's length in µs: 6 hours, 360 windows over the series' 90 days. */
export const WINDOW_MICROS = 6n * 3600n * 1_000_000n;
export const STREAM_PATH = '/stream/seattle.mbs';
/** The pace a request may ask for, in seconds for the whole stream: 0 is as fast as the connection goes. */
export const DEFAULT_SECONDS = 12;
export const MAX_SECONDS = 60;
const CONFIG = 'deltapacked-none-alp-none';

let cached;

/** The sample's blobs, in time order: the series' points in windows of WINDOW_MICROS from its first timestamp, empty windows left out. */
export function streamBlobs() {
  if (cached) return cached;
  const { metrics } = readNumericInput(STREAM_SOURCE);
  const first = metrics.reduce((t, m) => (m.timestamps.length && m.timestamps[0] < t ? m.timestamps[0] : t), metrics[0].timestamps[0]);
  const windows = new Map();
  for (const m of metrics) {
    m.timestamps.forEach((t, i) => {
      const k = Number((t - first) / WINDOW_MICROS);
      let window = windows.get(k);
      if (!window) windows.set(k, (window = new Map()));
      let part = window.get(m.name);
      if (!part) window.set(m.name, (part = { timestamps: [], values: [] }));
      part.timestamps.push(t);
      part.values.push(m.values[i]);
    });
  }
  cached = [...windows.keys()]
    .sort((a, b) => a - b)
    .map((k) => {
      const parts = [...windows.get(k)].map(([name, p]) => ({ name, timestamps: BigInt64Array.from(p.timestamps), values: Float64Array.from(p.values) }));
      return mebo.encodeNumeric(parts, { config: CONFIG, startTime: first + BigInt(k) * WINDOW_MICROS });
    });
  return cached;
}

/** Bytes of the framed stream: the magic, then a length and the blob for each. */
export function streamLength(blobs) {
  return blobs.reduce((n, b) => n + 4 + b.length, 4);
}

/** The pace a request asked for, or an error message. */
function seconds(url) {
  const keys = [...url.searchParams.keys()];
  if (keys.some((k) => k !== 'seconds')) return { error: `unknown parameter: ${keys.filter((k) => k !== 'seconds').join(', ')} (only seconds)` };
  const asked = url.searchParams.getAll('seconds');
  if (asked.length === 0) return { value: DEFAULT_SECONDS };
  const value = Number(asked[0]);
  if (asked.length > 1 || asked[0] === '' || !Number.isFinite(value) || value < 0 || value > MAX_SECONDS) return { error: `seconds must be one number from 0 to ${MAX_SECONDS}` };
  return { value };
}

/** Wait `ms`, or less when `signal` aborts. */
const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * The route for the demo's server (after `mebo.init()` and encoding the blobs once): `handle(req, res)` answers GET (and HEAD)
 * /stream/seattle.mbs and returns true, false for any other path. The blobs go
 * through `frameBlobs` from an async generator that waits between them; a
 * client that goes away stops it.
 */
export async function streamRoute() {
  await mebo.init();
  streamBlobs();
  function reply(res, status, message) {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(`${message}\n`);
    return true;
  }
  function handle(req, res) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== STREAM_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'the stream sample answers GET only');
    const pace = seconds(url);
    if (pace.error) return reply(res, 400, pace.error);
    const blobs = streamBlobs();
    res.writeHead(200, {
      'Content-Type': 'application/vnd.mebo-stream',
      'Content-Length': streamLength(blobs),
      'Cache-Control': 'no-store',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'X-Content-Type-Options': 'nosniff',
      'X-Mebo-Blobs': String(blobs.length),
    });
    if (req.method === 'HEAD') {
      res.end();
      return true;
    }
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const gap = (pace.value * 1000) / blobs.length;
    async function* paced() {
      for (const blob of blobs) {
        if (gone.signal.aborted) return;
        yield blob;
        if (gap > 0) await sleep(gap, gone.signal);
      }
    }
    const body = Readable.fromWeb(mebo.frameBlobs(paced()));
    body.on('error', () => res.destroy());
    body.pipe(res);
    return true;
  }
  return { handle };
}

/** The demo server's routes: the stream sample, then `next`'s (the benchmark API). */
export async function withStreamRoute(next) {
  const route = await streamRoute();
  return { handle: (req, res) => route.handle(req, res) || next.handle(req, res) };
}
