// Runs inside a host under test (Chromium): the chart-ready reads (range,
// decimate) of every numeric metric of the host sample, as plain JSON the
// Node side compares with the same calls in Node (which test/series.test.ts
// checks against plain JavaScript). No imports: the host hands in the SDK.

const hex16 = (v) => v.toString(16).padStart(16, '0');

/** @param {typeof import('../../src/entries/index.js')} mebo */
export function seriesSample(mebo, sample) {
  const results = {};
  for (const { name, bytes } of sample) {
    if (mebo.blobKind(bytes) !== 'numeric') continue;
    const blob = mebo.NumericBlob.from(bytes);
    try {
      results[name] = Array.from(blob.metricIds, (id) => {
        const ts = blob.timestamps(id);
        const [first, middle] = ts.length ? [ts[0], ts[ts.length >> 1]] : [0n, 0n];
        const decimated = (options) => {
          const d = blob.decimate(id, options);
          return { ms: Array.from(d.timestampsMs), bits: Array.from(new BigUint64Array(d.values.buffer, d.values.byteOffset, d.values.length), hex16), source: d.sourcePoints };
        };
        return {
          minmax: decimated({ method: 'minmax', buckets: 16 }),
          lttb: decimated({ method: 'lttb', buckets: 16 }),
          window: decimated({ method: 'minmax', buckets: 8, from: first, to: middle }),
          range: Array.from(blob.range(id, first, middle).timestamps, String),
        };
      });
    } finally {
      blob.free();
    }
  }
  return results;
}
