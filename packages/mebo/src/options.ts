// Option and limit types shared by the numeric and text APIs. Names and
// values are the conformance manifest's; the core parses and validates them.

import * as args from './args.js';
import { call } from './errors.js';
import { ready } from './init.js';
import { defaultDecodeLimits as coreDefaultDecodeLimits } from '../wasm/mebo_wasm.js';

export type TimestampEncoding = 'raw' | 'delta' | 'deltapacked';
export type ValueEncoding = 'raw' | 'gorilla' | 'chimp' | 'alp';
export type Compression = 'none' | 'zstd' | 's2' | 'lz4';
/** `v1`: insertion-ordered index; `v2`: sorted index; `v2-shared`: v2 storing identical timestamp columns once. */
export type Layout = 'v1' | 'v2' | 'v2-shared';
export type ByteOrder = 'little' | 'big';

/** A metric is addressed by its id (a bigint) or its name. */
export type MetricKey = bigint | string;

/** Caps on what decoding one blob may allocate; absent fields keep the defaults. */
export interface DecodeLimits {
  /** Largest size of one decompressed payload, in bytes (default 256 MiB). */
  maxDecompressedBytes?: number;
  /** Largest total point count of one blob (default 64 Mi). */
  maxPoints?: number;
}

/** The core's default limits. */
export function defaultDecodeLimits(): Required<DecodeLimits> {
  ready();
  return call(() => coreDefaultDecodeLimits()) as Required<DecodeLimits>;
}

/** @internal Limits as the bindings take them: a wasm32 usize and a u64, or undefined. */
export function limitArgs(limits: DecodeLimits | undefined): [number | undefined, bigint | undefined] {
  const { maxDecompressedBytes: bytes, maxPoints: points } = args.options<DecodeLimits>(limits, 'limits');
  const isCount = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  if (bytes !== undefined && !isCount(bytes)) throw args.invalidLimit('maxDecompressedBytes', bytes);
  if (points !== undefined && !isCount(points)) throw args.invalidLimit('maxPoints', points);
  return [
    // wasm32 memory cannot exceed 4 GiB: a larger cap means no cap.
    bytes === undefined ? undefined : Math.min(bytes, 0xffff_ffff),
    points === undefined ? undefined : BigInt(points),
  ];
}

/** @internal Start time for a one-shot encode that gives none: the earliest first timestamp, else 0. */
export function defaultStartTime(metrics: readonly { timestamps: ArrayLike<bigint> }[]): bigint {
  let start: bigint | undefined;
  for (const m of metrics) {
    const first = m.timestamps[0];
    if (typeof first === 'bigint' && (start === undefined || first < start)) start = first;
  }
  return start ?? 0n;
}
