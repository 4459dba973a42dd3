// Writing text blobs (the encoders: not in `mebo/decode`).

import { TextEncoderHandle } from '../wasm/mebo_wasm.js';
import * as args from './args.js';
import type { JoinedStrings } from './boundary.js';
import type { CodedStrings, TextEncodeOptions } from './boundary-encode.js';
import { codeStrings } from './coded-strings.js';
import { BlobEncoder, encodeAll, encoderArgs, encoderHandle, type EncoderBindings, type MetricInput, type MetricsStage } from './encoder.js';
import { invalidArgument } from './errors.js';
import { wasmMemory } from './module.js';
import { joinStrings } from './strings.js';

// How to write a text blob: declared with the constructor of the bindings
// that reads it (see boundary-encode.ts).
export type { TextEncodeOptions } from './boundary-encode.js';

/** A metric for `encodeText`: started by `name` when given, else by `id`. */
export type TextMetricInput = MetricInput<readonly string[]>;

/** The text encoder handle of the bindings, described structurally. */
type TextEncoderBindings = EncoderBindings<string, JoinedStrings> & {
  stageTimestamps(points: number): number;
  addMetrics(shapes: Uint32Array, names: JoinedStrings, ids: BigUint64Array, values: CodedStrings, tags?: CodedStrings): void;
};

/**
 * Builds one text blob (named so as not to shadow the global `TextEncoder`):
 * `startMetric` (at most 65,535 points), points (values and tags at most 255
 * UTF-8 bytes each), `endMetric`, for each metric, then `finish`. A refused call
 * leaves the encoder as it was; `finish` does not spend it (more metrics may
 * follow and the blob be finished again).
 */
export class TextBlobEncoder extends BlobEncoder<string, readonly string[], JoinedStrings, TextEncoderBindings> {
  constructor(startTime: bigint, options: TextEncodeOptions = {}) {
    const [start, o] = encoderArgs<TextEncodeOptions>(startTime, options);
    super('TextBlobEncoder', encoderHandle(() => new TextEncoderHandle(start, o)), true);
  }

  /** @internal */
  protected value(value: unknown): string {
    if (typeof value !== 'string') throw invalidArgument('value must be a string');
    return value;
  }

  /** @internal */
  protected values(values: unknown): JoinedStrings {
    return joinStrings(args.strings(values, 'values'));
  }

  /** @internal */
  protected metricValues(values: unknown): readonly string[] {
    return args.strings(values, 'values');
  }

  /** @internal Timestamps copied into room the handle stages, values coded (crates/mebo-wasm/src/joined.rs says why). */
  protected stage(points: number, values: number): MetricsStage<string> {
    const handle = this.live();
    const timestampsAt = handle.stageTimestamps(points);
    const lists: (readonly string[])[] = [];
    return {
      // After the call: staging may have grown the memory (a new buffer).
      timestamps: new BigInt64Array(wasmMemory().buffer, timestampsAt, points),
      add: (metricValues) => lists.push(metricValues as readonly string[]),
      cross: (shapes, names, ids, tags) => handle.addMetrics(shapes, names, ids, codeStrings(lists, values), tags),
    };
  }
}

/** Encode text metrics in one call; `options.startTime` defaults to the earliest first timestamp. */
export function encodeText(metrics: readonly TextMetricInput[], options: TextEncodeOptions & { startTime?: bigint } = {}): Uint8Array {
  const o = args.options<TextEncodeOptions & { startTime?: bigint }>(options, 'options');
  return encodeAll(metrics, o.startTime, (start) => new TextBlobEncoder(start, o));
}
