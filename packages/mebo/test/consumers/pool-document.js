// Copied beside the sources of the consumers that use `mebo/worker` (as
// decode-document.js is): decodes the sample with a DecodePool into per-metric
// columns in the vectors' input schema (timestamps, value bits or texts),
// with the `kind` each result carried. Plain JavaScript, no imports.

const hex16 = (v) => v.toString(16).padStart(16, '0');

/** decodeAll's columns as `{ kind, metrics: [{ id, timestamps, values | texts }] }`. */
export function columnsDocument(c) {
  const metrics = [];
  for (let i = 0; i < c.ids.length; i++) {
    const from = c.offsets[i];
    const to = c.offsets[i + 1];
    const m = { id: hex16(c.ids[i]), timestamps: Array.from(c.timestamps.subarray(from, to), String) };
    if (c.kind === 'numeric') m.values = Array.from(new BigUint64Array(c.values.buffer, c.values.byteOffset + from * 8, to - from), hex16);
    else m.texts = Array.from(c.codes.subarray(from, to), (code) => c.dictionary[code]);
    metrics.push(m);
  }
  return { kind: c.kind, metrics };
}

/** Every blob of `sample` (`[{ name, bytes }]`) decoded by `pool`, concurrently. */
export async function poolSample(pool, sample) {
  const results = {};
  await Promise.all(
    sample.map(async ({ name, bytes }) => {
      try {
        results[name] = columnsDocument(await pool.decodeAll(bytes));
      } catch (error) {
        results[name] = { error: { code: error?.code ?? 'THROWN', message: String(error?.message ?? error) } };
      }
    }),
  );
  return results;
}
