// Chart-ready series: time bounds, decimation options and results, and
// several metrics on one time axis (uPlot's data layout).

import * as args from './args.js';
import { invalidArgument } from './errors.js';
import type { MetricKey } from './options.js';

/**
 * A time bound: `bigint` epoch microseconds (exact), or `number` epoch
 * milliseconds (as `Date.now()` and `timestampsMs` give them; converted
 * to microseconds as `Math.ceil(ms * 1000)`, exact for integer points
 * below 2^53 µs, i.e. until the year 2255).
 */
export type TimeBound = bigint | number;

/** `decimate` options: `from`/`to` limit it to `from <= t < to`. */
export interface DecimateOptions {
  /**
   * `'minmax'` (M4): the time range in `buckets` equal buckets, each
   * non-empty one giving its first, minimum, maximum and last point (at most
   * 4 × buckets points; lines drawn through them look the same as through all).
   * `'lttb'`: Largest-Triangle-Three-Buckets to `buckets` points.
   */
  method: 'minmax' | 'lttb';
  buckets: number;
  from?: TimeBound;
  to?: TimeBound;
}

/**
 * A series thinned for a chart: x as epoch milliseconds, in time order. NaN
 * values are left out. The two arrays are views of one buffer.
 */
export interface Decimated {
  timestampsMs: Float64Array;
  values: Float64Array;
  /** Points of the range (NaN values not counted) the result was drawn from. */
  sourcePoints: number;
}

/** @internal The bindings' packed result, `[timestampsMs…, values…, sourcePoints]`, as views of one buffer. */
export function unpackDecimated(all: Float64Array): Decimated {
  const n = (all.length - 1) / 2;
  return { timestampsMs: all.subarray(0, n), values: all.subarray(n, 2 * n), sourcePoints: all[2 * n] };
}

/** @internal A time bound as epoch microseconds for the bindings. */
export function timeBound(value: unknown, what: string): bigint {
  if (typeof value === 'bigint') return args.i64(value, what);
  if (typeof value === 'number' && Number.isFinite(value)) {
    const micros = Math.ceil(value * 1000);
    // Beyond ±1.8e305 ms the product is infinite: out of range, as its microseconds would be.
    if (!Number.isFinite(micros)) throw invalidArgument(`${what} must be within [-2^63, 2^63) µs, got ${args.describe(value)} ms`);
    return args.i64(BigInt(micros), what);
  }
  throw invalidArgument(`${what} must be a bigint (epoch µs) or a finite number (epoch ms), got ${args.describe(value)}`);
}

/** @internal `decimate`'s options as the bindings take them: buckets, lttb?, from, to. */
export function decimateArgs(options: unknown): [number, boolean, bigint | undefined, bigint | undefined] {
  const o = (options ?? {}) as Partial<DecimateOptions>;
  if (o.method !== 'minmax' && o.method !== 'lttb') throw invalidArgument(`method must be 'minmax' or 'lttb', got ${args.describe(o.method)}`);
  const buckets = args.index(o.buckets, 'buckets');
  if (buckets < (o.method === 'lttb' ? 2 : 1)) throw invalidArgument(`buckets must be at least ${o.method === 'lttb' ? 2 : 1} for ${o.method}`);
  const from = o.from === undefined ? undefined : timeBound(o.from, 'from');
  const to = o.to === undefined ? undefined : timeBound(o.to, 'to');
  return [buckets, o.method === 'lttb', from, to];
}

/** What `alignedSeries` reads: a blob's `metric` or a set's `materializeMetric`. */
export interface SeriesSource {
  metric?(key: MetricKey): { timestamps: BigInt64Array; values: Float64Array };
  materializeMetric?(key: MetricKey): { timestamps: BigInt64Array; values: Float64Array };
}

/**
 * uPlot's data layout, `[xs, ...ys]`: xs ascending in seconds (`unit: 's'`,
 * uPlot's default) or milliseconds. When every metric has the same
 * timestamps (a v2-shared blob, or series sampled together) they come back as
 * they are, ys as Float64Arrays. Otherwise the metrics are joined on the
 * union of their timestamps, a metric without a point at a time gives `null`
 * there, and ys are plain arrays; a metric with several points at one time
 * keeps the last of them.
 */
export function alignedSeries(
  source: SeriesSource,
  keys: readonly MetricKey[],
  options: { unit?: 's' | 'ms' } = {},
): [Float64Array, ...(Float64Array | (number | null)[])[]] {
  const read = typeof source === 'object' && source !== null ? (source.materializeMetric?.bind(source) ?? source.metric?.bind(source)) : undefined;
  if (typeof read !== 'function') throw invalidArgument('alignedSeries needs a NumericBlob or a NumericBlobSet');
  if (!Array.isArray(keys)) throw invalidArgument('alignedSeries needs an array of metric names or ids');
  const unit = (options ?? {}).unit;
  if (unit !== undefined && unit !== 's' && unit !== 'ms') throw invalidArgument(`unit must be 's' or 'ms', got ${args.describe(unit)}`);
  const divisor = unit === 'ms' ? 1e3 : 1e6;
  const toX = (t: bigint) => Number(t) / divisor;
  const series = keys.map((key) => read(key));
  if (!series.every((s) => s.values instanceof Float64Array)) throw invalidArgument('alignedSeries charts numeric metrics: pass a NumericBlob or a NumericBlobSet');
  const first = series[0]?.timestamps ?? new BigInt64Array(0);
  const ascending = first.every((t, i) => i === 0 || first[i - 1] < t);
  const shared = ascending && series.every((s) => s.timestamps.length === first.length && s.timestamps.every((t, i) => t === first[i]));
  if (shared) return [Float64Array.from(first, toX), ...series.map((s) => s.values)];
  const union = [...new Set(series.flatMap((s) => Array.from(s.timestamps)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const at = new Map(union.map((t, i) => [t, i]));
  const ys = series.map((s) => {
    const y = new Array<number | null>(union.length).fill(null);
    s.timestamps.forEach((t, i) => (y[at.get(t)!] = s.values[i]));
    return y;
  });
  return [Float64Array.from(union, toX), ...ys];
}
