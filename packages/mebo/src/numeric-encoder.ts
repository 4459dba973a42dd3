// Writing numeric blobs (the encoders: not in `mebo/decode`).

import { NumericEncoderHandle } from '../wasm/mebo_wasm.js';
import * as args from './args.js';
import type { JoinedStrings } from './boundary.js';
import type { CodedStrings, NumericEncodeOptions } from './boundary-encode.js';
import { BlobEncoder, encodeAll, encoderArgs, encoderHandle, type EncoderBindings, type MetricInput, type MetricsStage } from './encoder.js';
import { call } from './errors.js';
import { wasmMemory } from './module.js';

// How to write a numeric blob: declared with the constructor of the bindings
// that reads it (see boundary-encode.ts).
export type { NumericEncodeOptions } from './boundary-encode.js';

/** A metric for `encodeNumeric`: started by `name` when given, else by `id`. */
export type NumericMetricInput = MetricInput<Float64Array | readonly number[]>;

/** The numeric encoder handle of the bindings, described structurally. */
type NumericEncoderBindings = EncoderBindings<number, Float64Array> & {
  finishEachPrefer(): { prefer: AutoPrefer; bytes: Uint8Array }[];
  stageColumns(points: number, values: number): Uint32Array;
  addMetrics(shapes: Uint32Array, names: JoinedStrings, ids: BigUint64Array, tags?: CodedStrings): void;
};

/** What `config: 'auto'` optimizes for. */
type AutoPrefer = NonNullable<NumericEncodeOptions['prefer']>;

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
    const [start, o] = encoderArgs<NumericEncodeOptions>(startTime, typeof options === 'string' ? { config: options } : options);
    const v1 = o.layout === undefined || o.layout === 'v1';
    super('NumericEncoder', encoderHandle(() => new NumericEncoderHandle(start, o)), true);
    this.#v1 = v1;
  }

  /** @internal */
  protected limitHint(message: string): string | undefined {
    return this.#v1 && typeof message === 'string' && message.startsWith('points per metric')
      ? "the v1 layout's 16-bit offsets cap the points of one metric; the v2 layout holds up to 2,147,483,647 (layout: 'v2' in the SDK, --layout v2 in the CLI)"
      : undefined;
  }

  /**
   * @internal With `config: 'auto'`: the blob each `prefer` would give, from
   * one sampling pass (`size`, `balanced`, `speed`): what `mebo inspect` reports.
   */
  finishEachPrefer(): { prefer: AutoPrefer; bytes: Uint8Array }[] {
    return call(() => this.live().finishEachPrefer());
  }

  /** @internal */
  protected value(value: unknown): number {
    if (typeof value !== 'number') throw args.invalidNumber('value', value);
    return value;
  }

  /** @internal */
  protected values(values: unknown): Float64Array {
    return args.float64s(values, 'values');
  }

  /** @internal */
  protected metricValues(values: unknown): ArrayLike<number> {
    return args.numbers(values, 'values');
  }

  /** @internal Both columns copied straight into room the handle stages (crates/mebo-wasm/src/batch.rs says why). */
  protected stage(points: number, values: number): MetricsStage<number> {
    const handle = this.live();
    const [timestampsAt, valuesAt] = handle.stageColumns(points, values);
    // After the call: staging may have grown the memory (a new buffer).
    const memory = wasmMemory().buffer;
    const joined = new Float64Array(memory, valuesAt, values);
    let at = 0;
    return {
      timestamps: new BigInt64Array(memory, timestampsAt, points),
      add(metricValues) {
        joined.set(metricValues, at);
        at += metricValues.length;
      },
      cross: (shapes, names, ids, tags) => handle.addMetrics(shapes, names, ids, tags),
    };
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
