// Size budgets of the shipped WebAssembly: gzip -9 of each build,
// in kB of 1000 bytes. To see what the bytes go to: `twiggy top -n 30` and
// `twiggy dominators` on target/wasm-bindgen/<variant>/*_bg.wasm (wasm-bindgen's
// output, with names); what was done about them is in scripts/build/
// (exports.mjs: exports stripped; variants.mjs: zstd's C at -Os) and crates/mebo/src/order.rs.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { FIRST_LOAD_BUDGET } from './helpers/first-load.js';
import { PACKAGE_ROOT } from './helpers/vectors.js';

// Raised from 205 / 150 kB when the four-stream XOR decoder and the delta
// stop-bit kernel, fallible reservations with the module's memory
// budget and `auto` (full builds) came in together:
// 209.5 / 154.2 kB as built then (docs/PERFORMANCE-LOG.md, Size). Full builds
// raised again to 217 kB for the simd128 timestamp kernels (delta's fixed
// five-group window, deltapacked's shuffle and its 4 kB table): 216.1 kB as
// built then, for V8 kernels 2.71 -> 1.39 (delta) and 1.81 -> 1.14 ns a
// point (deltapacked). Lowered to 213 / 157 kB when wasm-opt stopped inlining
// (scripts/build/variants.mjs, WASM_OPT_PASSES): 212.4 / 155.9 kB as built then.
// The scalar builds then got 3 kB back for Gorilla's reversed-column reader
// (bitstream.rs, `reversed`: 7.7 -> 5.8-6.2 ns a value there): 213.3 / 158.2 kB.
// All four 1-1.5 kB more for raw columns copied out or viewed as stored
// (`decode_unstored_into`: raw-none-raw-none's `decodeAllInto` in Node 105 ->
// 53-66 µs, `columnsView` 60-78 -> 30) and LZ4 blocks of raw columns decoded
// without walking them first: 213.8 / 215.0 / 157.4 / 159.8 kB as built then.
// deltapacked's and delta's zero-padded column tails: 214.0 / 214.9 / 157.6 /
// 159.8 kB. Columns read within their payload: 214.1 / 215.1 / 157.7 / 160.0
// kB (the decode-only scalar build 44 bytes under its budget). Lowered when
// the budgeted allocator's methods went out of line (crates/mebo-wasm,
// budget.rs: 2.5-4.3 kB less), after ALP columns read within their payload
// and views decoded into kept buffers took 0.6-1.1 kB of it back: 211.3 /
// 212.0 / 156.1 / 158.3 kB as built then.
// The full simd build 232 bytes over 211.3 kB after `auto`'s sampling by
// whole metrics and the timestamp walk's shared items moved to modules of
// their own: 211.5 kB as built then.
// Full builds 1.7 / 2.2 kB more for the encoders' strings taken joined and
// split in Rust (crates/mebo-wasm, joined.rs): 213.2 / 214.3 kB as built then.
// Full builds 2.3 / 1.3 kB more for the encoders' changes of one stop (ALP's
// (e, f) search two values at a time, 35% fewer instructions an ALP encode;
// the numeric options defined once): 215.8 / 215.9 kB as built then.
// Full builds 4.8 / 4.9 kB more for the one-call encoders' single crossing
// (crates/mebo-wasm batch.rs: every metric through one `addMetrics`, columns
// staged in wasm memory, strings coded; encodeText 2.5-3.3x and the bench's
// numeric encodes 4-27% faster in Node): 220.6 / 220.8 kB as built then.
// Full builds 0.6 / 0.7 kB more for the encode kernels writing into room
// sized for their worst case (bit streams, varints, raw and deltapacked
// columns; Gorilla and Chimp encode 15-20% faster in Node): 221.2 / 221.5 kB.
// Full builds 0.4 / 0.9 kB more for a metric's columns encoded from the
// caller's slices, Gorilla's and Chimp's one-field writes and deltapacked's
// unrolled groups (deltapacked-none-raw-none 27% faster in Node, the raw and
// delta configurations 13%): 221.6 / 222.4 kB.
// The light core of `mebo/decode` and its zstd part (built for size, see
// scripts/build/variants.mjs): 95.1 / 45.1 kB as first built; the core 99.2
// kB at opt-level 2 with the delta timestamps' shuffle kernel (1.9 + 2.3 kB
// for text and lz4 decode 2.4-4.7x and delta timestamps 1.4-1.6x faster);
// the part 19.7 kB no_std, without wasm-bindgen, its own arena allocator,
// libzstd with bulk memory and one Huffman and one sequence decoder.
// Every build lowered when the timestamp kernels' tables were built on first
// use instead of stored, and metric names in errors no longer went through
// `Debug` (Unicode's printable tables): 218.3 / 220.4 / 152.7 / 156.6 kB, the
// core 91.8 kB; 89.9 kB through the other builds' wasm-opt passes instead
// of -Oz. The zstd part 8.6 kB with a zstd decoder of our own in place
// of libzstd (crates/mebo-zstd); 9.5 kB with its sequences written in place
// (short copies as 8-byte words) and its four Huffman streams interleaved.
// The core split by function (scripts/build/split.mjs): what numeric blobs
// read metric by metric run, 43.5 kB; its rest 51.7 kB (together 5.3 kB more
// than the core whole, for the stubs, what each imports of the other, and
// two gzip streams).
const BUDGETS: [file: string, gzipBytes: number][] = [
  ['mebo_simd.wasm', 218_800],
  ['mebo_scalar.wasm', 220_900],
  ['mebo_decode_simd.wasm', 153_200],
  ['mebo_decode_scalar.wasm', 157_100],
  ['mebo_core_simd.wasm', 43_800],
  ['mebo_core_rest.wasm', 52_100],
  ['mebo_zstd.wasm', 9_800],
];

it.each(BUDGETS)('%s is at most %d bytes gzipped (-9)', (file, budget) => {
  const bytes = readFileSync(join(PACKAGE_ROOT, 'wasm', file));
  const gzipped = gzipSync(bytes, { level: 9 }).length;
  console.log(`${file}: ${bytes.length} bytes, ${gzipped} gzipped (budget ${budget}, ${budget - gzipped} to spare)`);
  expect(gzipped).toBeLessThanOrEqual(budget);
});

// What a page with no bundler fetches before its first decode through
// `mebo/decode` (the minified bundle and the light core), and once it has met
// a zstd blob (plus the core's rest and the zstd part).
const FIRST_LOAD: [what: string, files: string[], gzipBytes: number][] = [
  ['the first numeric blob without zstd', ['dist/decode.min.js', 'wasm/mebo_core_simd.wasm'], FIRST_LOAD_BUDGET.firstBlob],
  ['a zstd blob and a text blob too', ['dist/decode.min.js', 'wasm/mebo_core_simd.wasm', 'wasm/mebo_core_rest.wasm', 'wasm/mebo_zstd.wasm'], FIRST_LOAD_BUDGET.everyPart],
];

it.each(FIRST_LOAD)('mebo/decode in a page, %s (%j): at most %d bytes gzipped', (what, files, budget) => {
  const gzipped = files.reduce((sum, file) => sum + gzipSync(readFileSync(join(PACKAGE_ROOT, file)), { level: 9 }).length, 0);
  console.log(`${what}: ${gzipped} bytes gzipped (${files.join(' + ')}; budget ${budget})`);
  expect(gzipped).toBeLessThanOrEqual(budget);
});
