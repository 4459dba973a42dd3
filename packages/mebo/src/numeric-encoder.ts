// Writing numeric blobs (the encoders: not in `mebo/decode`).

import { NumericEncoderHandle } from '../wasm/mebo_wasm.js';
import * as args from './args.js';
import { call } from './errors.js';
import { ready } from './init.js';
import type { Compression, Layout, TimestampEncoding, ValueEncoding } from './options.js';
import { BlobEncoder, encodeAll, type EncoderBindings, type MetricInput } from './encoder.js';

/** How to write a numeric blob. Absent fields keep the defaults (delta, gorilla, no codecs, no tags, little endian, v1). */
export interface NumericEncodeOptions {
  /** The four column choices at once, e.g. `delta-none-gorilla-zstd`; the fields below override it. */
  config?: string;
  timestampEncoding?: TimestampEncoding;
  valueEncoding?: ValueEncoding;
  timestampCompression?: Compression;
  valueCompression?: Compression;
  tags?: boolean;
  bigEndian?: boolean;
  layout?: Layout;
}

/** A metric for `encodeNumeric`: started by `name` when given, else by `id`. */
export type NumericMetricInput = MetricInput<Float64Array | readonly number[]>;

/** @internal The numeric encoder handle of the bindings, described structurally. */
export type NumericEncoderBindings = EncoderBindings<number, Float64Array>;

/**
 * Builds one numeric blob: `startMetric`, points, `endMetric`, for each
 * metric, then `finish`. A refused call leaves the encoder as it was (a refused
 * `endMetric` leaves the metric open: add the missing points, or drop it with
 * `cancelMetric`). `finish` leaves the encoder as
 * it was: more metrics may follow and the blob be finished again.
 */
export class NumericEncoder extends BlobEncoder<number, Float64Array | readonly number[], Float64Array, NumericEncoderBindings> {
  /** The v1 layout, whose 16-bit offsets cap the points of a metric (named in that error). */
  readonly #v1: boolean;

  constructor(startTime: bigint, options: NumericEncodeOptions | string = {}) {
    ready();
    const start = args.i64(startTime, 'startTime');
    const o = typeof options === 'string' ? { config: options } : args.options<NumericEncodeOptions>(options, 'options');
    const v1 = o.layout === undefined || o.layout === 'v1';
    const handle = call(
      () =>
        new NumericEncoderHandle(
          start,
          args.optionalString(o.config, 'config'),
          args.optionalString(o.timestampEncoding, 'timestampEncoding'),
          args.optionalString(o.valueEncoding, 'valueEncoding'),
          args.optionalString(o.timestampCompression, 'timestampCompression'),
          args.optionalString(o.valueCompression, 'valueCompression'),
          args.optionalBoolean(o.tags, 'tags'),
          args.optionalBoolean(o.bigEndian, 'bigEndian'),
          args.optionalString(o.layout, 'layout'),
        ),
    );
    super(handle, true);
    this.#v1 = v1;
  }

  protected limitHint(message: string): string | undefined {
    return this.#v1 && typeof message === 'string' && message.startsWith('points per metric')
      ? "the v1 layout's 16-bit offsets cap the points of one metric; the v2 layout holds up to 2,147,483,647 (layout: 'v2' in the SDK, --layout v2 in the CLI)"
      : undefined;
  }

  protected value(value: unknown): number {
    if (typeof value !== 'number') throw args.invalidNumber('value', value);
    return value;
  }

  protected values(values: unknown): Float64Array {
    return args.float64s(values, 'values');
  }
}

/**
 * Encode metrics in one call. `options` is a config string such as
 * `delta-none-gorilla-zstd` or an options object, which may also carry the
 * blob's `startTime` (default: the earliest first timestamp).
 */
export function encodeNumeric(
  metrics: readonly NumericMetricInput[],
  options: (NumericEncodeOptions & { startTime?: bigint }) | string = {},
): Uint8Array {
  const o = typeof options === 'string' ? { config: options } : args.options<NumericEncodeOptions & { startTime?: bigint }>(options, 'options');
  return encodeAll(metrics, o.startTime, (start) => new NumericEncoder(start, o));
}
