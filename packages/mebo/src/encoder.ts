// What the numeric and text encoders have in common: metrics started by name
// or id, points one at a time or in bulk, the blob finished any number of
// times. The subclasses check their value type and open their handle.

import * as args from './args.js';
import type { JoinedStrings } from './boundary.js';
import { call, invalidArgument, MeboError } from './errors.js';
import { ready } from './module.js';
import { defaultStartTime } from './options.js';
import { Owned, type Freeable } from './owned.js';
import { joinStrings } from './strings.js';

/** An encoder handle of the bindings, described structurally; `V` is one value, `Vs` the bulk form, tags in bulk joined (in the .d.ts because BlobEncoder's type names it). */
export interface EncoderBindings<V, Vs> extends Freeable {
  startMetricName(name: string, count: number): void;
  startMetricId(id: bigint, count: number): void;
  addPoint(timestamp: bigint, value: V, tag?: string): void;
  addPoints(timestamps: BigInt64Array, values: Vs, tags?: JoinedStrings): void;
  endMetric(): void;
  cancelMetric(): void;
  metricCount(): number;
  finish(): Uint8Array;
}

/** A metric for the one-call encoders: started by `name` when given, else by `id`. */
export interface MetricInput<Values> {
  name?: string;
  id?: bigint;
  timestamps: BigInt64Array | readonly bigint[];
  values: Values;
  tags?: readonly string[];
}

/**
 * An encoder constructor's arguments, checked: the start time, and the
 * options object as the bindings' constructor takes it (see `encoderHandle`).
 */
export function encoderArgs<O extends object>(startTime: unknown, options: unknown): [bigint, Partial<O>] {
  ready();
  return [args.i64(startTime, 'startTime'), args.options<O>(options, 'options')];
}

/**
 * The handle `make` opens with the options object: the bindings check each
 * field's type (a TypeError carrying the refused `value`: INVALID_ARGUMENT,
 * described here as the SDK describes arguments) and the core its value
 * (INVALID_OPTIONS); absent fields keep the core's defaults.
 */
export function encoderHandle<H>(make: () => H): H {
  return call(() => {
    try {
      return make();
    } catch (error) {
      if (error instanceof TypeError && 'value' in error) throw invalidArgument(`${error.message}, got ${args.describe(error.value)}`);
      throw error;
    }
  });
}

export abstract class BlobEncoder<V, ValuesIn, Vs, H extends EncoderBindings<V, Vs>> extends Owned<H> {
  /** @internal One value, checked (a MeboError otherwise). */
  protected abstract value(value: unknown): V;
  /** @internal Many values, checked and in the form the bindings take. */
  protected abstract values(values: unknown): Vs;

  /** @internal How to get past the limit a LIMIT_EXCEEDED message names, added to it (a subclass's choice). */
  protected limitHint(_message: string): string | undefined {
    return undefined;
  }

  /** Start a metric by name (its id is the name's xxHash64) or by id, declaring its point count. */
  startMetric(nameOrId: string | bigint, count: number): this {
    const [key, points] = args.metricStart(nameOrId, count);
    const handle = this.live();
    try {
      call(() => (typeof key === 'string' ? handle.startMetricName(key, points) : handle.startMetricId(key, points)));
    } catch (error) {
      const hint = error instanceof MeboError && error.code === 'LIMIT_EXCEEDED' ? this.limitHint(error.message) : undefined;
      throw hint ? new MeboError('LIMIT_EXCEEDED', `${(error as MeboError).message}: ${hint}`) : error;
    }
    return this;
  }

  /** Add one point; `tag` is stored only when the blob has tags. */
  addPoint(timestamp: bigint, value: V, tag?: string): this {
    const ts = args.i64(timestamp, 'timestamp');
    const checked = this.value(value);
    const tagArg = args.optionalString(tag, 'tag');
    call(() => this.live().addPoint(ts, checked, tagArg));
    return this;
  }

  /** Add many points: parallel arrays, `tags` (when given) with one per point. All or none are added. */
  addPoints(timestamps: BigInt64Array | readonly bigint[], values: ValuesIn, tags?: readonly string[]): this {
    const ts = args.bigint64s(timestamps, 'timestamps');
    const vs = this.values(values);
    const tagArgs = args.optionalStrings(tags, 'tags');
    call(() => this.live().addPoints(ts, vs, tagArgs && joinStrings(tagArgs)));
    return this;
  }

  /** End the open metric: it must have exactly the declared point count. */
  endMetric(): this {
    call(() => this.live().endMetric());
    return this;
  }

  /** Drop the open metric and its points (after a refused `endMetric`, say). */
  cancelMetric(): this {
    call(() => this.live().cancelMetric());
    return this;
  }

  /** Metrics ended so far. */
  get metricCount(): number {
    return call(() => this.live().metricCount());
  }

  /** The blob of every metric ended so far. */
  finish(): Uint8Array {
    return call(() => this.live().finish());
  }
}

/**
 * @internal Every metric through a new encoder (`open(startTime)`), then the blob; the
 * start time defaults to the earliest first timestamp.
 */
export function encodeAll<ValuesIn, E extends BlobEncoder<unknown, ValuesIn, unknown, EncoderBindings<unknown, unknown>>>(
  metrics: readonly MetricInput<ValuesIn>[],
  startTime: bigint | undefined,
  open: (startTime: bigint) => E,
): Uint8Array {
  if (!Array.isArray(metrics)) throw invalidArgument('metrics must be an array of { name or id, timestamps, values }');
  metrics.forEach((m, i) => {
    if (typeof m !== 'object' || m === null || typeof m.timestamps !== 'object' || m.timestamps === null) {
      throw invalidArgument(`metric ${i} must be an object { name or id, timestamps, values }`);
    }
  });
  const encoder = open(startTime ?? defaultStartTime(metrics));
  try {
    for (const m of metrics) {
      encoder.startMetric(m.name ?? (m.id as bigint), m.timestamps.length);
      encoder.addPoints(m.timestamps, m.values, m.tags);
      encoder.endMetric();
    }
    return encoder.finish();
  } finally {
    encoder.free();
  }
}
