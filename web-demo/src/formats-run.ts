// The formats view's work, in its own chunk with the peer libraries (see
// formats.ts): the open blob decoded to its points, those points encoded as
// each format, then every format decoded in turn, round after round, each
// result checked bit for bit. The format codecs are the bench's
// (mebo-tooling/peers), so Node and this page time the same code.

import * as arrow from 'apache-arrow';
import * as fzstd from 'fzstd';
import * as hyparquet from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import * as mebo from 'mebo';
import initParquet, * as parquet from 'parquet-wasm/esm';
import { arrowFormat, checkSeries, hyparquetFormat, inInputOrder, jsonFormat, meboFormat, parquetWasmFormat, roundRobin, zstdCodec } from 'mebo-tooling/peers';
import { ZstdCodec } from 'zstd-codec';

export interface FormatRow {
  format: string;
  config?: string;
  bytes: number;
  gzip: number;
  decodeMedianUs: number;
  decodeMinUs: number;
  encodeMedianUs?: number;
}

type Series = { name: string; id?: bigint; timestamps: BigInt64Array; values: Float64Array };
type Input = { startTime: bigint; metrics: Series[] };

let parquetReady: Promise<unknown> | undefined;
let moduleReady: Promise<unknown> | undefined;
let zstdReady: Promise<{ compress(data: Uint8Array): Uint8Array; decompress(data: Uint8Array): Uint8Array }> | undefined;

/** gzip -6 of `bytes` by the browser's CompressionStream: what a server's default gzip sends. */
async function gzipSize(bytes: Uint8Array): Promise<number> {
  const stream = new Blob([bytes.slice()]).stream().pipeThrough(new CompressionStream('gzip'));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

function configOf(bytes: Uint8Array): string {
  using blob = mebo.NumericBlob.from(bytes);
  const o = blob.options;
  return `${o.timestampEncoding}-${o.timestampCompression}-${o.valueEncoding}-${o.valueCompression}`;
}

/** The blob's points, named (by name when stored, else `id:<hex>` with the id to start them by), in the blob's order. */
function pointsOf(bytes: Uint8Array): Input {
  using blob = mebo.NumericBlob.from(bytes);
  const names = blob.names;
  const { ids, offsets, timestamps, values } = blob.decodeAll();
  return {
    startTime: blob.startTime,
    metrics: Array.from(ids, (id, i) => ({
      name: names?.[i] ?? `id:${id.toString(16).padStart(16, '0')}`,
      ...(names ? {} : { id }),
      timestamps: timestamps.slice(offsets[i], offsets[i + 1]),
      values: values.slice(offsets[i], offsets[i + 1]),
    })),
  };
}

export async function runFormats(bytes: Uint8Array, progress: (line: string) => void): Promise<FormatRow[]> {
  // This bundle has its own copy of the SDK: load the page's wasm build into it.
  const variant = mebo.simdSupported() ? 'simd' : 'scalar';
  moduleReady ??= mebo.init({ wasm: fetch(`wasm/mebo_${variant}.wasm`), variant });
  parquetReady ??= initParquet({ module_or_path: new URL('wasm/parquet_wasm_bg.wasm', location.href) });
  zstdReady ??= zstdCodec(ZstdCodec, fzstd);
  const [, , zstd] = await Promise.all([moduleReady, parquetReady, zstdReady]);
  const input = pointsOf(bytes);
  const own = meboFormat(mebo, 'this blob', {});
  const parquetWasm = parquetWasmFormat(arrow, parquet);
  const formats = [
    { ...own, encode: () => bytes, mebo: true },
    { ...meboFormat(mebo, 'mebo auto', { config: 'auto' }), mebo: true },
    { ...meboFormat(mebo, 'mebo auto size', { config: 'auto', prefer: 'size' }), mebo: true },
    { ...meboFormat(mebo, 'mebo default', 'delta-none-gorilla-none'), mebo: true },
    { ...jsonFormat(), mebo: false },
    { ...arrowFormat(arrow), mebo: false },
    { ...arrowFormat(arrow, zstd), mebo: false },
    { ...parquetWasm, mebo: false },
    { ...hyparquetFormat(hyparquet, compressors, parquetWasm), mebo: false },
  ];
  const rows = [];
  for (const f of formats) {
    progress(`encoding ${f.name}…`);
    const payload: Uint8Array = await f.encode(input);
    const check = (d: Series[]) => checkSeries(`${f.name}`, input, f.mebo ? inInputOrder(mebo, input, d) : d);
    check(await f.decode(payload));
    rows.push({ f, payload, check, config: f.mebo ? configOf(payload) : undefined, gzip: await gzipSize(payload) });
  }
  progress('decoding every format in turn…');
  const timing = { rounds: 11, sampleMs: 20 };
  const decode = await roundRobin(timing, rows.map((r) => ({ key: r.f.name, run: () => r.f.decode(r.payload), check: r.check })));
  progress('encoding every format in turn…');
  const encoders = rows.filter((r) => r.f.name !== 'this blob' && r.f.name !== 'hyparquet');
  const encode = await roundRobin(timing, encoders.map((r) => ({ key: r.f.name, run: () => r.f.encode(input) })));
  return rows.map((r) => ({
    format: r.f.name,
    config: r.config,
    bytes: r.payload.length,
    gzip: r.gzip,
    decodeMedianUs: decode[r.f.name]!.median_us,
    decodeMinUs: decode[r.f.name]!.min_us,
    encodeMedianUs: encode[r.f.name]?.median_us,
  }));
}
