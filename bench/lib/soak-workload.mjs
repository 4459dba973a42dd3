// The soak workload (bench/soak.mjs), the same in Node and in Chromium: what a
// service or a dashboard left running does all day. Blobs of mixed sizes are
// decoded (every numeric and text bench blob, in turn), encoded, and now and
// then a large one; a chart's range and decimation of the long vector; every
// object freed. Plain JavaScript, no imports: each host hands in the SDK.

/** Points of the large blob decoded every `BIG_EVERY` operations. */
export const BIG_POINTS = 1_000_000;
const BIG_EVERY = 50;
const ENCODE_EVERY = 10;

/**
 * `numeric`, `text`: bench blobs (Uint8Array); `long`: the long vector.
 * Returns the workload: `minute(ms)` runs operations for `ms` and reports
 * what it did.
 */
/** `read(blob)` on a blob opened by `open`, freed after (Node 20 has no `using`). */
function withBlob(blob, read) {
  try {
    return read(blob);
  } finally {
    blob.free();
  }
}

export function soakWorkload(mebo, { numeric, text, long }) {
  // What the encoder is given: the metrics of the first bench blob, decoded once.
  const encodeInput = withBlob(mebo.NumericBlob.from(numeric[0]), (blob) => {
    const metrics = Array.from(blob.metricIds, (id) => {
      const { timestamps, values } = blob.metric(id);
      return { id, timestamps, values };
    });
    return { startTime: blob.startTime, metrics, points: blob.totalPoints };
  });
  const big = (() => {
    const timestamps = new BigInt64Array(BIG_POINTS / 4).map((_, i) => 1_700_000_000_000_000n + BigInt(i) * 1_000_000n);
    const metrics = [0, 1, 2, 3].map((m) => ({ name: `big.${m}`, timestamps, values: new Float64Array(BIG_POINTS / 4).map((_, i) => Math.round(Math.sin(i / 500 + m) * 1e4) / 100) }));
    return mebo.encodeNumeric(metrics, { config: 'delta-none-gorilla-zstd', layout: 'v2' });
  })();
  const [longId, from, mid] = withBlob(mebo.NumericBlob.from(long), (blob) => {
    const id = blob.metricIds[0];
    const ts = blob.timestamps(id);
    return [id, ts[0], ts[ts.length >> 1]];
  });
  let op = 0;
  let sink = 0;

  /** One operation; returns the points it handled. */
  function step() {
    op++;
    if (op % BIG_EVERY === 0) {
      sink += withBlob(mebo.NumericBlob.from(big), (blob) => blob.decodeAll().values.length);
      return BIG_POINTS;
    }
    if (op % ENCODE_EVERY === 0) {
      const bytes = mebo.encodeNumeric(encodeInput.metrics, { startTime: encodeInput.startTime, config: 'delta-none-gorilla-zstd' });
      sink += bytes.length;
      return encodeInput.points;
    }
    if (op % ENCODE_EVERY === 5) {
      return withBlob(mebo.NumericBlob.from(long), (blob) => {
        sink += blob.range(longId, from, mid).values.length;
        sink += blob.decimate(longId, { method: 'minmax', buckets: 1000 }).values.length;
        return blob.totalPoints;
      });
    }
    if (op % 3 === 0) {
      const points = withBlob(mebo.TextBlob.from(text[op % text.length]), (blob) => blob.decodeAll().codes.length);
      sink += points;
      return points;
    }
    const points = withBlob(mebo.NumericBlob.from(numeric[op % numeric.length]), (blob) => (op % 2 ? blob.decodeAll() : blob.columnsView()).values.length);
    sink += points;
    return points;
  }

  return {
    /** Run for `ms` milliseconds: operations, points, and the module's memory after. */
    minute(ms) {
      const start = performance.now();
      let ops = 0;
      let points = 0;
      while (performance.now() - start < ms) {
        points += step();
        ops++;
      }
      const seconds = (performance.now() - start) / 1000;
      const info = mebo.memoryInfo();
      return { ops, points, seconds, wasmBytes: info.memoryBytes, liveHandles: info.liveHandles, sink: sink % 1000 };
    },
  };
}
