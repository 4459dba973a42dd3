// What the numeric and text encoders have in common: metrics started by name
// or id, points one at a time or in bulk, the blob finished any number of
// times. The subclasses check their value type and open their handle.

import * as args from './args.js';
import type { JoinedStrings } from './boundary.js';
import type { CodedStrings } from './boundary-encode.js';
import { codeStrings } from './coded-strings.js';
import { call, invalidArgument, MeboError, type MeboErrorCode } from './errors.js';
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

/** The layout `addMetrics` sends, as crates/mebo-wasm/src/batch.rs reads it: flags, timestamp, value and tag counts a metric. */
const SHAPE_LEN = 4;
const BY_NAME = 1;
const NO_TAGS = 0xffff_ffff;
/** Points `addMetrics` stages at once (16 MiB of columns), unless one metric holds more. */
const BATCH_POINTS = 1 << 20;

/**
 * @internal Every metric's points on their way into a handle's `addMetrics`:
 * `timestamps` is room for all of them, back to back, and `add` takes each
 * metric's values in turn (both copied into room the handle staged in the
 * module's memory, or gathered); `cross` hands the metrics over.
 */
export interface MetricsStage<V> {
  readonly timestamps: BigInt64Array;
  add(values: ArrayLike<V>): void;
  cross(shapes: Uint32Array, names: JoinedStrings, ids: BigUint64Array, tags: CodedStrings | undefined): void;
}

/** `metrics` when it is an array of objects with timestamps (INVALID_ARGUMENT otherwise; a hole is a metric too). */
function checkMetrics<M extends MetricInput<unknown>>(metrics: readonly M[]): readonly M[] {
  if (!Array.isArray(metrics)) throw invalidArgument('metrics must be an array of { name or id, timestamps, values }');
  for (let i = 0; i < metrics.length; i++) {
    const m: unknown = metrics[i];
    if (typeof m !== 'object' || m === null || typeof (m as M).timestamps !== 'object' || (m as M).timestamps === null) {
      throw invalidArgument(`metric ${i} must be an object { name or id, timestamps, values }`);
    }
  }
  return metrics;
}

/** A metric as an error names it: its index and its name or id. */
function metricLabel(index: number, m: MetricInput<unknown>): string {
  const key = m.name ?? m.id;
  return `metric ${index} (${typeof key === 'string' ? args.describe(key) : `id ${args.describe(key)}`})`;
}

/** `error` with the metric it is about named first. */
function atMetric(error: unknown, index: number, m: MetricInput<unknown>): unknown {
  return error instanceof MeboError ? new MeboError(error.code, `${metricLabel(index, m)}: ${error.message}`, { cause: error.cause }) : error;
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

  /** @internal A metric's values, checked (a MeboError otherwise), as given. */
  protected abstract metricValues(values: unknown): ArrayLike<V>;
  /** @internal Where `addMetrics` puts every metric's timestamps (`points` in all) and values (`values`). */
  protected abstract stage(points: number, values: number): MetricsStage<V>;

  /** @internal How to get past the limit a LIMIT_EXCEEDED message names, added to it (a subclass's choice). */
  protected limitHint(_message: string): string | undefined {
    return undefined;
  }

  /** `error` with the subclass's hint added when it is a LIMIT_EXCEEDED the hint is for. */
  #hinted(error: unknown): unknown {
    const hint = error instanceof MeboError && error.code === 'LIMIT_EXCEEDED' ? this.limitHint(error.message) : undefined;
    return hint ? new MeboError('LIMIT_EXCEEDED', `${(error as MeboError).message}: ${hint}`) : error;
  }

  /** Start a metric by name (its id is the name's xxHash64) or by id, declaring its point count. */
  startMetric(nameOrId: string | bigint, count: number): this {
    const [key, points] = args.metricStart(nameOrId, count);
    const handle = this.live();
    try {
      call(() => (typeof key === 'string' ? handle.startMetricName(key, points) : handle.startMetricId(key, points)));
    } catch (error) {
      throw this.#hinted(error);
    }
    return this;
  }

  /**
   * @internal Every metric as `startMetric`, `addPoints`, `endMetric` would
   * add it, in one crossing into the bindings for every million points or
   * so (one call per metric cost more than the encode of a small one). Each metric's arguments are checked as
   * those calls check them before any crosses; a refused metric is named in
   * the error by its index and its name or id. The metrics before a refused
   * one stay added: `encodeAll`'s encoder is dropped with them.
   */
  addMetrics(metrics: readonly MetricInput<ValuesIn>[]): this {
    checkMetrics(metrics);
    const n = metrics.length;
    const shapes = new Uint32Array(n * SHAPE_LEN);
    const names = new Array<string>(n);
    const ids = new BigUint64Array(n);
    const stamps = new Array<BigInt64Array | readonly bigint[]>(n);
    const valueLists = new Array<ArrayLike<V>>(n);
    const tagLists = new Array<readonly string[] | undefined>(n);
    for (let i = 0; i < n; i++) {
      const m = metrics[i];
      try {
        const [key, count] = args.metricStart(m.name ?? m.id, m.timestamps.length);
        const ts = args.bigints(m.timestamps, 'timestamps');
        const vs = this.metricValues(m.values);
        const tg = args.optionalStrings(m.tags, 'tags');
        const at = i * SHAPE_LEN;
        if (typeof key === 'string') {
          shapes[at] = BY_NAME;
          names[i] = key;
        } else {
          names[i] = '';
          ids[i] = key;
        }
        shapes[at + 1] = count;
        shapes[at + 2] = vs.length;
        shapes[at + 3] = tg ? tg.length : NO_TAGS;
        stamps[i] = ts;
        valueLists[i] = vs;
        tagLists[i] = tg;
      } catch (error) {
        throw atMetric(error, i, m);
      }
    }
    // In batches of at most BATCH_POINTS points (a larger metric alone): the
    // staged columns add no more than that to the module's memory while the
    // encoder copies them.
    for (let first = 0, last = 0; first < n; first = last) {
      let points = 0;
      for (last = first; last < n && (last === first || points + shapes[last * SHAPE_LEN + 1] <= BATCH_POINTS); last++) {
        points += shapes[last * SHAPE_LEN + 1];
      }
      this.#crossBatch(metrics, first, last, shapes, names, ids, stamps, valueLists, tagLists);
    }
    return this;
  }

  /** Metrics `first` to `last` (excluded), checked by `addMetrics`, through one `addMetrics` of the handle. */
  #crossBatch(
    metrics: readonly MetricInput<ValuesIn>[],
    first: number,
    last: number,
    shapes: Uint32Array,
    names: readonly string[],
    ids: BigUint64Array,
    stamps: readonly (BigInt64Array | readonly bigint[])[],
    valueLists: readonly ArrayLike<V>[],
    tagLists: readonly (readonly string[] | undefined)[],
  ): void {
    let [points, values, tags] = [0, 0, 0];
    const batchTags: (readonly string[])[] = [];
    for (let i = first; i < last; i++) {
      points += stamps[i].length;
      values += valueLists[i].length;
      const tg = tagLists[i];
      if (tg) {
        batchTags.push(tg);
        tags += tg.length;
      }
    }
    call(() => {
      const stage = this.stage(points, values);
      for (let i = first, at = 0; i < last; at += stamps[i].length, i++) {
        let what = 'timestamps';
        try {
          // None (a detached array reads as empty): the core refuses the metric's zero points, as it did before any copy.
          if (stamps[i].length > 0) stage.timestamps.set(stamps[i], at);
          what = 'values';
          stage.add(valueLists[i]);
        } catch (error) {
          // A detached array of values: INVALID_ARGUMENT, as the glue's copy of it is.
          throw atMetric(error instanceof TypeError ? invalidArgument(`${what}: ${error.message}`) : error, i, metrics[i]);
        }
      }
      const batchShapes = shapes.subarray(first * SHAPE_LEN, last * SHAPE_LEN);
      try {
        stage.cross(batchShapes, joinStrings(names.slice(first, last)), ids.subarray(first, last), batchTags.length === 0 ? undefined : codeStrings(batchTags, tags));
      } catch (thrown) {
        // The bindings name a refused metric by its index in the batch.
        const index = (thrown as { metric?: unknown } | null)?.metric;
        const code = (thrown as { code?: unknown } | null)?.code;
        if (typeof index !== 'number' || typeof code !== 'string') throw thrown;
        throw atMetric(this.#hinted(new MeboError(code as MeboErrorCode, (thrown as Error).message)), first + index, metrics[first + index]);
      }
    });
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
  const encoder = open(startTime ?? defaultStartTime(checkMetrics(metrics)));
  try {
    return encoder.addMetrics(metrics).finish();
  } finally {
    encoder.free();
  }
}
