// Writing text blobs (the encoders: not in `mebo/decode`).

import { TextEncoderHandle } from '../wasm/mebo_wasm.js';
import * as args from './args.js';
import { call, invalidArgument } from './errors.js';
import { ready } from './init.js';
import type { Compression } from './options.js';
import type { TextTimestampEncoding } from './text.js';
import { BlobEncoder, encodeAll, type EncoderBindings, type MetricInput } from './encoder.js';

/** How to write a text blob. Absent fields keep the defaults (raw timestamps, zstd, no tags, little endian). */
export interface TextEncodeOptions {
  timestampEncoding?: TextTimestampEncoding;
  dataCompression?: Compression;
  tags?: boolean;
  bigEndian?: boolean;
}

/** A metric for `encodeText`: started by `name` when given, else by `id`. */
export type TextMetricInput = MetricInput<readonly string[]>;

/** @internal The text encoder handle of the bindings, described structurally. */
export type TextEncoderBindings = EncoderBindings<string, string[]>;

/**
 * Builds one text blob (named so as not to shadow the global `TextEncoder`):
 * `startMetric` (at most 65,535 points), points (values and tags at most 255
 * UTF-8 bytes each), `endMetric`, for each metric, then `finish`. A refused call
 * leaves the encoder as it was; `finish` does not spend it (more metrics may
 * follow and the blob be finished again).
 */
export class TextBlobEncoder extends BlobEncoder<string, readonly string[], string[], TextEncoderBindings> {
  constructor(startTime: bigint, options: TextEncodeOptions = {}) {
    ready();
    const start = args.i64(startTime, 'startTime');
    const o = args.options<TextEncodeOptions>(options, 'options');
    const handle = call(
      () =>
        new TextEncoderHandle(
          start,
          args.optionalString(o.timestampEncoding, 'timestampEncoding'),
          args.optionalString(o.dataCompression, 'dataCompression'),
          args.optionalBoolean(o.tags, 'tags'),
          args.optionalBoolean(o.bigEndian, 'bigEndian'),
        ),
    );
    super(handle, true);
  }

  protected value(value: unknown): string {
    if (typeof value !== 'string') throw invalidArgument('value must be a string');
    return value;
  }

  protected values(values: unknown): string[] {
    return args.strings(values, 'values');
  }
}

/** Encode text metrics in one call; `options.startTime` defaults to the earliest first timestamp. */
export function encodeText(metrics: readonly TextMetricInput[], options: TextEncodeOptions & { startTime?: bigint } = {}): Uint8Array {
  const o = args.options<TextEncodeOptions & { startTime?: bigint }>(options, 'options');
  return encodeAll(metrics, o.startTime, (start) => new TextBlobEncoder(start, o));
}
