// The profile the light core is split by (split.mjs): which of its functions
// run when the SDK's light path opens and reads numeric blobs without zstd or
// tags, whole and spoiled. Run by the build in a process of its own, once
// the core is built: `node split-profile.mjs CORE FEATURES BUNDLE` (BUNDLE,
// `mebo/decode` bundled from src/: build-sdk.mjs --decode-bundle) prints the
// indices of the functions that ran, as JSON.
//
// The SDK loads the core it is built beside (packages/mebo/wasm/
// mebo_core_simd.wasm); here its compile is handed the instrumented core
// instead, and its instantiation the import that records each function as
// it runs.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../lib.mjs';
import { instrument } from './split.mjs';

const [corePath, features, bundle] = process.argv.slice(2);
const installed = readFileSync(join(ROOT, 'packages/mebo/wasm/mebo_core_simd.wasm'));
const instrumented = await WebAssembly.compile(instrument(readFileSync(corePath), Number(features)));
const ran = new Set();

const compile = WebAssembly.compile;
WebAssembly.compile = (bytes) => (Buffer.from(bytes.buffer ?? bytes, bytes.byteOffset, bytes.byteLength).equals(installed) ? Promise.resolve(instrumented) : compile(bytes));
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = (module, imports) =>
  instantiate(module, module === instrumented ? { ...imports, profile: { ran: (index) => ran.add(index) } } : imports);

const mebo = await import(bundle);
await mebo.init({ parts: 'core' });
if (!mebo.wasmInfo().variant) throw new Error('split-profile: the SDK did not load the core');

/** The numeric blobs without zstd payloads or tags of a manifest of testdata. */
function plainBlobs(dir) {
  const { cases } = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  return cases
    .filter(({ kind, options: o }) => kind === 'numeric' && !o.tags && o.timestampCompression !== 'zstd' && o.valueCompression !== 'zstd')
    .map(({ file }) => new Uint8Array(readFileSync(join(dir, file))));
}

/**
 * What a numeric blob is read with from the core alone, metric by metric:
 * its accessors, each metric's columns and points, and the top-level
 * functions. The calls over the whole blob or a chart's (`decodeAllInto`,
 * `columnsView`, `decimate`, `range`, `sections`) need the core's rest, and
 * say so (numeric.ts): the core leaves them out; before it, `decodeAll()`
 * reads the metrics one by one.
 */
function readWhole(blob, bytes) {
  void [blob.options, blob.startTime, blob.length, blob.totalPoints, blob.metricIds, blob.names];
  for (const key of [...(blob.names ?? []), ...blob.metricIds]) {
    const metric = blob.metric(key);
    void [metric.id, metric.name, metric.timestamps, metric.values, metric.tags];
    void [blob.indexOf(key), blob.has(key), blob.values(key), blob.timestamps(key), blob.timestampsMs(key), blob.tags(key)];
    const points = blob.pointCount(key);
    if (points > 0) void [blob.valueAt(key, points - 1), blob.timestampAt(key, points - 1), blob.tagAt(key, 0)];
  }
  void [mebo.blobKind(bytes), mebo.metricId('profile'), mebo.memoryInfo()];
}

/**
 * The blob cut at twelve places, with 24 bits flipped anywhere, and with
 * each bit of its first 64 bytes (header, index) flipped: the errors' paths.
 */
function* spoiled(bytes) {
  for (let k = 1; k <= 12; k++) yield bytes.subarray(0, Math.floor((bytes.length * k) / 13));
  for (let k = 0; k < 24; k++) {
    const copy = bytes.slice();
    copy[(k * 2654435761) % copy.length] ^= 1 << k % 8;
    yield copy;
  }
  for (let bit = 0; bit < Math.min(bytes.length, 64) * 8; bit++) {
    const copy = bytes.slice();
    copy[bit >> 3] ^= 1 << (bit & 7);
    yield copy;
  }
}

// `from()`: a spoiled blob that reads as one with zstd is MISSING_PART before
// the core opens it, as in a page (its path through the core is the rest's).
for (const bytes of [...plainBlobs(join(ROOT, 'testdata/vectors')), ...plainBlobs(join(ROOT, 'testdata/bench'))]) {
  for (const candidate of [bytes, ...spoiled(bytes)]) {
    let blob;
    try {
      blob = mebo.NumericBlob.from(candidate);
      readWhole(blob, candidate);
    } catch (error) {
      if (!(error instanceof mebo.MeboError)) throw error;
    } finally {
      blob?.free();
    }
  }
}
process.stdout.write(JSON.stringify([...ran].sort((a, b) => a - b)));
