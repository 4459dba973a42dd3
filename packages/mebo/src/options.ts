// Option and limit types shared by the numeric and text APIs. Names and
// values are the conformance manifest's; the core parses and validates them.
// The option names and DecodeLimits are declared with the bindings (see
// boundary.ts), where a Rust test holds the names to the core's.

import * as args from './args.js';
import type { DecodeLimits } from './boundary.js';
import { call } from './errors.js';
import { ready } from './module.js';
import { defaultDecodeLimits as coreDefaultDecodeLimits } from '../wasm/mebo_wasm.js';

export type { ByteOrder, Compression, DecodeLimits, Layout, TimestampEncoding, ValueEncoding } from './boundary.js';

/** A metric is addressed by its id (a bigint) or its name. */
export type MetricKey = bigint | string;

/** The core's default limits. */
export function defaultDecodeLimits(): Required<DecodeLimits> {
  ready();
  return call(() => coreDefaultDecodeLimits());
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
