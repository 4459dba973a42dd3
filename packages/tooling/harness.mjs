// The timing loop and the operations timed by `npm run bench`, shared by the
// Node runner, the Chromium page and the web demo's benchmark panel. Only
// standard JavaScript (performance.now, typed arrays): no Node API here.

/**
 * Sampling plans: `full` for reported figures, `quick` for a short run (the
 * web demo's default). Both take at least 30 samples, so each row has a
 * stable median and a minimum; crates/mebo-bench uses the same counts.
 */
export const PLANS = {
  full: { samples: 40, minSampleMs: 2, warmupMs: 150 },
  quick: { samples: 30, minSampleMs: 1, warmupMs: 20 },
};

/**
 * Time `op`: warm it up (at least `warmupMs` and 3 calls), then take
 * `samples` samples, each repeating `op` enough times to last at least
 * `minSampleMs`; a sample's time is its duration over its repetitions.
 * `op` returns a number that is folded into a sink so no engine can drop it.
 * Returns nanoseconds per call.
 */
export function measure(op, plan = PLANS.full) {
  const timing = new Timing(plan);
  while (timing.warming()) timing.sink += op();
  for (let s = 0; s < plan.samples; s++) {
    const t0 = performance.now();
    for (let r = 0; r < timing.reps; r++) timing.sink += op();
    timing.sample(s, t0);
  }
  return timing.result();
}

/** The bookkeeping of `measure` and `measureAsync`: warm-up, repetitions, samples, statistics. */
class Timing {
  constructor(plan) {
    this.plan = plan;
    this.sink = 0;
    this.start = performance.now();
    this.calls = 0;
    this.reps = 1;
    this.times = new Float64Array(plan.samples);
  }

  /** True while the warm-up goes on; once over, fixes the repetitions per sample. */
  warming() {
    const elapsed = performance.now() - this.start;
    if (this.calls++ < 3 || elapsed < this.plan.warmupMs) return true;
    this.reps = Math.max(1, Math.ceil(this.plan.minSampleMs / Math.max(elapsed / (this.calls - 1), 1e-6)));
    return false;
  }

  sample(s, t0) {
    this.times[s] = ((performance.now() - t0) / this.reps) * 1e6;
  }

  result() {
    this.times.sort();
    if (Number.isNaN(this.sink)) throw new Error('benchmark sink is NaN'); // keeps `sink` observable
    return { median_ns: Math.round(this.times[this.times.length >> 1]), min_ns: Math.round(this.times[0]), runs: this.plan.samples, reps: this.reps };
  }
}

/** `measure` for an operation that returns a promise (the worker pool's calls). */
export async function measureAsync(op, plan = PLANS.full) {
  const timing = new Timing(plan);
  while (timing.warming()) timing.sink += await op();
  for (let s = 0; s < plan.samples; s++) {
    const t0 = performance.now();
    for (let r = 0; r < timing.reps; r++) timing.sink += await op();
    timing.sample(s, t0);
  }
  return timing.result();
}

/**
 * The worker-pool benchmark: `blobs` (8 numeric bench blobs) decoded one after
 * another on this thread, and all at once by `pool` (mebo/worker); and one
 * tiny blob both ways, for the per-call overhead. Rows for `runtime`.
 */
export async function poolRows(mebo, pool, blobs, runtime, plan) {
  const points = blobs.reduce((n, b) => {
    const blob = mebo.NumericBlob.from(b);
    n += blob.totalPoints;
    blob.free();
    return n;
  }, 0);
  const bytes = blobs.reduce((n, b) => n + b.length, 0);
  const tiny = mebo.encodeNumeric([{ name: 'tiny', timestamps: [1n, 2n, 3n], values: [1, 2, 3] }]);
  const row = (config, op, n, size, t) => ({ config, runtime, op, points: n, bytes: size, ...t });
  return [
    row(`bench-${blobs.length}-blobs`, 'decode-serial', points, bytes, await measureAsync(async () => blobs.reduce((s, b) => s + decodeNumeric(mebo, b), 0), plan)),
    row(`bench-${blobs.length}-blobs`, 'decode-pool', points, bytes, await measureAsync(async () => (await Promise.all(blobs.map((b) => pool.decodeAll(b)))).length, plan)),
    row('tiny', 'decode-serial', 3, tiny.length, await measureAsync(async () => decodeNumeric(mebo, tiny), plan)),
    row('tiny', 'decode-pool', 3, tiny.length, await measureAsync(async () => (await pool.decodeAll(tiny)).values.length, plan)),
  ];
}

/**
 * `num-seed200x250-delta-none-gorilla-none-notags-le-v1` → `delta-none-gorilla-none`;
 * text cases → `text-<tsEnc>-<codec>`; a layout other than v1 is kept as a suffix.
 * The same naming as crates/mebo-bench.
 */
export function configName(benchCase) {
  const o = benchCase.options;
  if (benchCase.kind === 'text') return `text-${o.timestampEncoding}-${o.dataCompression}`;
  const base = `${o.timestampEncoding}-${o.timestampCompression}-${o.valueEncoding}-${o.valueCompression}`;
  return !o.layout || o.layout === 'v1' ? base : `${base}-${o.layout}`;
}

/**
 * The SDK's decode-everything call on a numeric blob: open, `decodeAll()`
 * (typed arrays copied out of wasm memory), free. Returns a checksum-ish number.
 */
export function decodeNumeric(mebo, bytes) {
  const blob = mebo.NumericBlob.from(bytes);
  try {
    const c = blob.decodeAll();
    return c.values.length + c.offsets.length + c.values[c.values.length - 1];
  } finally {
    blob.free();
  }
}

/**
 * The same with `decodeAllInto`: the columns land in typed arrays kept from
 * the previous call (`reuse.columns`), as a dashboard decoding blob after blob would.
 */
export function decodeNumericInto(mebo, bytes, reuse) {
  const blob = mebo.NumericBlob.from(bytes);
  try {
    const c = (reuse.columns = reuse.columns ? blob.decodeAllInto(reuse.columns) : blob.decodeAll());
    return c.values.length + c.offsets.length + c.values[c.values.length - 1];
  } finally {
    blob.free();
  }
}

/**
 * The same through `columnsView()`: every metric decoded into memory the
 * blob owns and read through views of the module's memory, no copy out.
 */
export function decodeNumericView(mebo, bytes) {
  const blob = mebo.NumericBlob.from(bytes);
  try {
    const c = blob.columnsView();
    const values = c.values;
    return values.length + c.offsets.length + values[values.length - 1];
  } finally {
    blob.free();
  }
}

/** The same for a text blob (strings split into a `string[]`). */
export function decodeText(mebo, bytes) {
  const blob = mebo.TextBlob.from(bytes);
  try {
    const c = blob.decodeAll();
    return c.values.length + c.offsets.length + c.values[c.values.length - 1].length;
  } finally {
    blob.free();
  }
}

/**
 * The same with `TextBlob.decodeAllInto`: timestamps and dictionary codes land
 * in arrays kept from the previous call (`reuse.columns`).
 */
export function decodeTextInto(mebo, bytes, reuse) {
  const blob = mebo.TextBlob.from(bytes);
  try {
    const c = (reuse.columns = reuse.columns ? blob.decodeAllInto(reuse.columns) : blob.decodeAll());
    return c.timestamps.length + c.offsets.length + c.dictionary.length;
  } finally {
    blob.free();
  }
}

/**
 * A columnar JSON payload (`{metrics:[{name, timestamps:[numbers], values:[numbers]}]}`)
 * parsed into the columns `decodeAll` returns: one timestamp column, one value
 * column, metric offsets. JSON has no int64, so timestamps (microseconds,
 * below 2^53) land in a Float64Array: the cheapest honest target.
 */
export function decodeJson(text) {
  const { metrics } = JSON.parse(text);
  let total = 0;
  for (const m of metrics) total += m.values.length;
  const timestamps = new Float64Array(total);
  const values = new Float64Array(total);
  const offsets = new Uint32Array(metrics.length + 1);
  let at = 0;
  for (let i = 0; i < metrics.length; i++) {
    const m = metrics[i];
    timestamps.set(m.timestamps, at);
    values.set(m.values, at);
    at += m.values.length;
    offsets[i + 1] = at;
  }
  return values.length + offsets.length + values[values.length - 1] + metrics[0].name.length;
}

/**
 * An Arrow IPC stream of one record batch, one row per metric:
 * `{name: Utf8, timestamps: List<Int64>, values: List<Float64>}` — the same
 * columns-plus-offsets shape as `decodeAll`. Reading yields the child
 * BigInt64Array / Float64Array and the Int32Array offsets, which apache-arrow
 * hands out as zero-copy views of the IPC bytes (no per-point work at all).
 */
export function decodeArrow(arrow, bytes) {
  const table = arrow.tableFromIPC(bytes);
  const ts = table.getChild('timestamps').data[0];
  const vs = table.getChild('values').data[0];
  const timestamps = ts.children[0].values;
  const values = vs.children[0].values;
  const offsets = vs.valueOffsets;
  const names = table.getChild('name');
  if (!(timestamps instanceof BigInt64Array) || !(values instanceof Float64Array)) {
    throw new Error('unexpected Arrow column types');
  }
  return values.length + offsets.length + values[values.length - 1] + names.length;
}

/**
 * Where the SDK's decode time goes, for one numeric blob: `open` (from +
 * free: copy into wasm, parse, decompress, own the payloads), `decodeAll` on
 * an opened blob (decode in wasm, then new typed arrays copied out of wasm
 * memory), and, for scale, the two 8-byte-per-point output columns copied
 * from a wasm memory view into fresh typed arrays (what the bindings' glue
 * does) and into reused ones, the blob's bytes copied into wasm memory
 * (what `from` does before the open) and out of it into a fresh array (what
 * an encode does last).
 */
export function breakdown(mebo, bytes, plan) {
  const open = measure(() => {
    const blob = mebo.NumericBlob.from(bytes);
    blob.free();
    return 1;
  }, plan);
  const blob = mebo.NumericBlob.from(bytes);
  const points = blob.totalPoints;
  const decodeAll = measure(() => blob.decodeAll().values.length, plan);
  blob.free();
  const memory = new WebAssembly.Memory({ initial: Math.ceil((points * 16) / 65536) + 1 });
  const values = new Float64Array(memory.buffer, 0, points);
  const timestamps = new BigInt64Array(memory.buffer, points * 8, points);
  const fresh = measure(() => new Float64Array(values).length + new BigInt64Array(timestamps).length, plan);
  const intoValues = new Float64Array(points);
  const intoTimestamps = new BigInt64Array(points);
  const reused = measure(() => {
    intoValues.set(values);
    intoTimestamps.set(timestamps);
    return points;
  }, plan);
  // The blob's bytes into wasm memory, as `from` copies them (at their own offset modulo 64).
  const input = new WebAssembly.Memory({ initial: Math.ceil((bytes.length + 64) / 65536) });
  const staged = new Uint8Array(input.buffer, bytes.byteOffset % 64, bytes.length);
  const copyIn = measure(() => {
    staged.set(bytes);
    return 1;
  }, plan);
  // The blob out of wasm memory into a fresh array, as an encode's glue returns it.
  const blobOut = measure(() => new Uint8Array(staged).length, plan);
  return {
    open_free_ns: open.median_ns,
    decode_all_ns: decodeAll.median_ns,
    copy_in_ns: copyIn.median_ns,
    copy_out_fresh_ns: fresh.median_ns,
    copy_out_reused_ns: reused.median_ns,
    blob_out_fresh_ns: blobOut.median_ns,
  };
}

/** Buckets of the decimation benchmark: a chart about 1,000 pixels wide. */
export const DECIMATE_BUCKETS = 1000;

/** M4 in plain JavaScript over `xs` (ascending) and `ys`: per bucket its first, min, max and last point. */
function minMaxJs(xs, ys, buckets) {
  const n = xs.length;
  const outX = [];
  const outY = [];
  if (n === 0) return [outX, outY];
  const lo = xs[0];
  const span = xs[n - 1] - lo || 1;
  let start = 0;
  while (start < n) {
    const bucket = Math.min(buckets - 1, Math.floor(((xs[start] - lo) / span) * buckets));
    let end = start + 1;
    while (end < n && Math.min(buckets - 1, Math.floor(((xs[end] - lo) / span) * buckets)) === bucket) end++;
    let min = start;
    let max = start;
    for (let k = start; k < end; k++) {
      if (ys[k] < ys[min]) min = k;
      if (ys[k] > ys[max]) max = k;
    }
    const picks = [start, min, max, end - 1].sort((a, b) => a - b);
    for (let j = 0; j < 4; j++) {
      if (j === 0 || picks[j] !== picks[j - 1]) {
        outX.push(xs[picks[j]]);
        outY.push(ys[picks[j]]);
      }
    }
    start = end;
  }
  return [outX, outY];
}

/** Steinarsson's LTTB in plain JavaScript over `xs` and `ys`. */
function lttbJs(xs, ys, threshold) {
  const n = xs.length;
  if (threshold >= n || threshold === 0) return [Array.from(xs), Array.from(ys)];
  const every = (n - 2) / (threshold - 2);
  const outX = [xs[0]];
  const outY = [ys[0]];
  let a = 0;
  let nextA = 0;
  for (let i = 0; i < threshold - 2; i++) {
    let avgX = 0;
    let avgY = 0;
    const avgStart = Math.floor((i + 1) * every) + 1;
    const avgEnd = Math.min(Math.floor((i + 2) * every) + 1, n);
    for (let k = avgStart; k < avgEnd; k++) {
      avgX += xs[k];
      avgY += ys[k];
    }
    avgX /= avgEnd - avgStart;
    avgY /= avgEnd - avgStart;
    const ax = xs[a];
    const ay = ys[a];
    let maxArea = -1;
    for (let k = Math.floor(i * every) + 1, to = Math.floor((i + 1) * every) + 1; k < to; k++) {
      const area = Math.abs((ax - avgX) * (ys[k] - ay) - (ax - xs[k]) * (avgY - ay)) * 0.5;
      if (area > maxArea) {
        maxArea = area;
        nextA = k;
      }
    }
    outX.push(xs[nextA]);
    outY.push(ys[nextA]);
    a = nextA;
  }
  outX.push(xs[n - 1]);
  outY.push(ys[n - 1]);
  return [outX, outY];
}

/**
 * The decimation benchmark's rows for `runtime`: each of `blobs`
 * (`{ config, bytes }`) read for a chart by `decimateAll`, in wasm and in
 * JavaScript, with each method.
 */
export function decimateRows(mebo, blobs, runtime, plan) {
  const rows = [];
  for (const { config, bytes } of blobs) {
    const blob = mebo.NumericBlob.from(bytes);
    const points = blob.totalPoints;
    blob.free();
    // The decode alone (no copy out, nothing thinned): both sides pay it, so
    // js / decode-view bounds the ratio decimating in wasm can reach.
    rows.push({ config, runtime, op: 'decimate-decode-view', points, bytes: bytes.length, ...measure(() => decodeNumericView(mebo, bytes), plan) });
    for (const method of ['minmax', 'lttb']) {
      for (const js of [false, true]) {
        const op = `decimate-${method}${js ? '-js' : ''}`;
        rows.push({ config, runtime, op, points, bytes: bytes.length, ...measure(() => decimateAll(mebo, bytes, method, js), plan) });
      }
    }
  }
  return rows;
}

/**
 * A chart's read of every metric of a numeric blob (its time series sorted,
 * as the bench and the long vector are), thinned to `DECIMATE_BUCKETS`
 * points: open, decimate each metric, free. With `js`, the same without
 * `decimate`: each metric's `timestampsMs` and `values` from wasm, thinned in
 * JavaScript, as a dashboard does today. Returns a checksum-ish number.
 */
export function decimateAll(mebo, bytes, method, js) {
  const blob = mebo.NumericBlob.from(bytes);
  try {
    let sink = 0;
    for (const id of blob.metricIds) {
      if (js) {
        const thin = method === 'lttb' ? lttbJs : minMaxJs;
        const [xs, ys] = thin(blob.timestampsMs(id), blob.values(id), DECIMATE_BUCKETS);
        sink += xs.length + ys[ys.length - 1];
      } else {
        const d = blob.decimate(id, { method, buckets: DECIMATE_BUCKETS });
        sink += d.timestampsMs.length + d.values[d.values.length - 1];
      }
    }
    return sink;
  } finally {
    blob.free();
  }
}

/** The `prefer` choices of `config: 'auto'`, in the order the encode rows list them. */
export const AUTO_PREFERS = ['size', 'balanced', 'speed'];

/**
 * The SDK's encode options for a bench case (`startTime` from its input):
 * the case's configuration, layout, tags and byte order.
 */
export function encodeOptions(benchCase, startTime) {
  const o = benchCase.options;
  if (benchCase.kind === 'text') return { timestampEncoding: o.timestampEncoding, dataCompression: o.dataCompression, tags: o.tags, bigEndian: o.bigEndian, startTime };
  return {
    config: `${o.timestampEncoding}-${o.timestampCompression}-${o.valueEncoding}-${o.valueCompression}`,
    layout: o.layout,
    tags: o.tags,
    bigEndian: o.bigEndian,
    startTime,
  };
}

/** Two byte arrays hold the same bytes. */
function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The encode rows for `runtime`: each case of `cases` encoded from its input
 * by the SDK (`encodeNumeric` / `encodeText`, the case's options), its bytes
 * first compared with the recorded blob (`identical`: the reference's own
 * bytes; the s2 and lz4 libraries may choose other matches); then the first
 * numeric input encoded with `config: 'auto'` under each prefer (op
 * `encode-auto`, config `auto-<prefer>`, `chosen`: what it wrote, as the
 * blob's header says). `inputOf(case)` is the case's input as the SDK's
 * encoders take it (`{ startTime, metrics }`), `blobOf(case)` its recorded
 * bytes; `record(row)` sees each row as it is measured, `verify(case, bytes)`
 * each encoded blob once, untimed (it throws on a wrong one; the case is
 * undefined for the `auto` blobs of the first numeric input).
 *
 * @param {{ record?: (row: any) => void, verify?: (benchCase: any, bytes: Uint8Array) => void }} [hooks]
 */
export function encodeRows(mebo, cases, inputOf, blobOf, runtime, plan, hooks = {}) {
  const record = hooks.record ?? (() => {});
  const verify = hooks.verify ?? (() => {});
  const rows = [];
  const push = (row) => {
    rows.push(row);
    record(row);
  };
  let autoInput;
  for (const benchCase of cases) {
    const input = inputOf(benchCase);
    const options = encodeOptions(benchCase, input.startTime);
    const encode = benchCase.kind === 'text' ? () => mebo.encodeText(input.metrics, options) : () => mebo.encodeNumeric(input.metrics, options);
    const encoded = encode();
    verify(benchCase, encoded);
    const points = input.metrics.reduce((n, m) => n + m.timestamps.length, 0);
    const identical = sameBytes(encoded, blobOf(benchCase));
    push({ config: configName(benchCase), runtime, op: 'encode', points, bytes: encoded.length, identical, ...measure(() => encode().length, plan) });
    if (benchCase.kind === 'numeric') autoInput ??= input;
  }
  if (autoInput) {
    const points = autoInput.metrics.reduce((n, m) => n + m.timestamps.length, 0);
    for (const prefer of AUTO_PREFERS) {
      const options = { config: 'auto', prefer, startTime: autoInput.startTime };
      const encoded = mebo.encodeNumeric(autoInput.metrics, options);
      verify(undefined, encoded);
      const blob = mebo.NumericBlob.from(encoded);
      const o = blob.options;
      const chosen = `${o.timestampEncoding}-${o.timestampCompression}-${o.valueEncoding}-${o.valueCompression}`;
      blob.free();
      push({ config: `auto-${prefer}`, runtime, op: 'encode-auto', points, bytes: encoded.length, chosen, ...measure(() => mebo.encodeNumeric(autoInput.metrics, options).length, plan) });
    }
  }
  return rows;
}
