// Runs inside every host under test (Deno, workerd, Chromium): decodes blobs
// through the SDK's public API into the conformance vectors' input schema,
// plain JSON the Node side compares with the input files. Plain JavaScript,
// no imports: each host hands in the SDK module it loaded.

const hex16 = (v) => v.toString(16).padStart(16, '0');

/** @param {typeof import('../../src/entries/index.js')} mebo @param {Uint8Array} bytes */
export function decodeDocument(mebo, bytes) {
  return blobDocument(mebo, mebo.blobKind(bytes) === 'text' ? mebo.TextBlob.from(bytes) : mebo.NumericBlob.from(bytes));
}

/** An opened blob's document; the blob is freed. */
function blobDocument(mebo, blob) {
  try {
    const o = blob.options;
    const numeric = blob instanceof mebo.NumericBlob;
    const options = numeric
      ? {
          timestampEncoding: o.timestampEncoding,
          valueEncoding: o.valueEncoding,
          timestampCompression: o.timestampCompression,
          valueCompression: o.valueCompression,
          tags: o.tags,
          bigEndian: o.bigEndian,
          layout: o.layout,
        }
      : { timestampEncoding: o.timestampEncoding, dataCompression: o.dataCompression, tags: o.tags, bigEndian: o.bigEndian };
    const names = blob.names;
    const keys = names ?? Array.from(blob.metricIds);
    const metrics = keys.map((key) => {
      const m = blob.metric(key);
      const out = { id: hex16(m.id), timestamps: Array.from(m.timestamps, String) };
      if (names) out.name = m.name;
      if (numeric) {
        const bits = new BigUint64Array(m.values.buffer, m.values.byteOffset, m.values.length);
        out.values = Array.from(bits, hex16);
      } else {
        out.texts = m.values;
      }
      if (m.tags !== undefined) out.tags = m.tags;
      return out;
    });
    return { kind: numeric ? 'numeric' : 'text', startTimeMicros: String(blob.startTime), options, metrics };
  } finally {
    blob.free();
  }
}

/**
 * Decode every blob of `sample` (`[{ name, bytes }]`): one result each, a
 * document or `{ error: { code, message } }`, and what the host loaded.
 */
export function decodeSample(mebo, sample) {
  const results = {};
  for (const { name, bytes } of sample) {
    try {
      results[name] = decodeDocument(mebo, bytes);
    } catch (error) {
      results[name] = { error: { code: error?.code ?? 'THROWN', message: String(error?.message ?? error) } };
    }
  }
  return { variant: mebo.wasmVariant() ?? null, simd: mebo.simdSupported(), results };
}

/** Base64 to bytes without Node's Buffer (workers and browsers have atob). */
export function fromBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Decode a stream of blobs through `decodeStream` (`source`: a Response, a
 * Request, a ReadableStream), its blobs named `names` in stream order: the
 * results decodeSample gives for the same blobs; an error that ends the
 * stream is `streamError`.
 */
export async function decodeStreamSample(mebo, source, names) {
  const results = {};
  let i = 0;
  try {
    for await (const blob of mebo.decodeStream(source)) results[names[i++] ?? `extra-${i}`] = blobDocument(mebo, blob);
  } catch (error) {
    return { results, streamError: { code: error.code, message: error.message } };
  }
  return { results };
}
