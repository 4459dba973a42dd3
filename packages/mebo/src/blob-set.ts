// Blob sets: consecutive time windows of the same metrics, read as one series
// per metric. The core orders the blobs by start time; a metric may be missing
// from some windows.

import { NumericBlobSetHandle, TextBlobSetHandle } from '../wasm/mebo_wasm.js';
import * as args from './args.js';
import type { JoinedStrings, NumericColumns, RawSeries, RawTextColumns } from './boundary.js';
import { call, invalidArgument } from './errors.js';
import { metricId } from './hash.js';
import { ready, stage } from './module.js';
import { checkParts, ensureParts } from './parts.js';
import { limitArgs, type DecodeLimits, type MetricKey } from './options.js';
import { Owned } from './owned.js';
import { splitOptionalStrings, splitStrings } from './strings.js';
import { decimateArgs, timeBound, unpackDecimated, type Decimated, type DecimateOptions, type TimeBound } from './series.js';
import { textColumns, type TextColumns } from './text.js';

/** One metric's series over every blob of a set. */
export interface MaterializedMetric<V> {
  id: bigint;
  timestamps: BigInt64Array;
  values: V;
  /** Present when any blob holding the metric has tags (empty strings elsewhere). */
  tags?: string[];
}

/**
 * A set handle of the bindings, described structurally so the published
 * types stay off the generated glue (the compiler checks the glue's classes
 * against it where `from` opens one): `V` is a series' values, `C` the
 * columns of `materialize`.
 */
interface SetHandle<V, C> {
  free(): void;
  blobCount(): number;
  timeRange(): BigInt64Array;
  metricIds(): BigUint64Array;
  metricLength(id: bigint): number;
  metricDuration(id: bigint): bigint;
  materializeMetric(id: bigint): RawSeries<V>;
  range(id: bigint, from: bigint, to: bigint): RawSeries<V>;
  materialize(): C;
}

/** The numeric set handle also decimates. */
interface NumericSetHandle extends SetHandle<Float64Array, NumericColumns> {
  decimate(id: bigint, buckets: number, lttb: boolean, from?: bigint, to?: bigint): Float64Array;
}

/** The text set handle: values as joined strings. */
type TextSetHandle = SetHandle<JoinedStrings, RawTextColumns>;

interface SetHandleClass<H> {
  openStaged(lengths: Uint32Array, maxBytes?: number, maxPoints?: bigint): H;
}

/** Copy the blobs back to back into wasm memory, so one call opens the whole set. */
function openSet<H>(handleClass: SetHandleClass<H>, kind: string, blobs: Iterable<Uint8Array | ArrayBuffer>, limits?: DecodeLimits): H {
  ready();
  const parts = args.items(blobs, 'blobs').map((b, i) => args.bytes(b, `blob ${i}`));
  if (parts.length === 0) throw invalidArgument('a blob set needs at least one blob');
  for (const part of parts) checkParts(part, kind, true);
  const lengths = Uint32Array.from(parts, (p) => p.byteLength);
  const [maxBytes, maxPoints] = limitArgs(limits);
  return call(() => {
    stage(parts);
    return handleClass.openStaged(lengths, maxBytes, maxPoints);
  });
}

/** The blobs as an array, once every part they need is loaded (see `NumericBlob.load`). */
async function withParts(blobs: Iterable<Uint8Array | ArrayBuffer>): Promise<(Uint8Array | ArrayBuffer)[]> {
  ready();
  const list = args.items(blobs, 'blobs') as (Uint8Array | ArrayBuffer)[];
  for (const [i, b] of list.entries()) await ensureParts(args.bytes(b, `blob ${i}`), true);
  return list;
}

/** A metric key as an id: names are hashed, as blobs key metrics. */
function idOf(key: MetricKey): bigint {
  return typeof key === 'bigint' ? args.u64(key, 'metric id') : metricId(key);
}

/** A series of the bindings as the SDK gives it. */
function numericSeries(id: bigint, raw: RawSeries<Float64Array>): MaterializedMetric<Float64Array> {
  return withTags({ id, timestamps: raw.timestamps, values: raw.values }, raw.tags);
}

function textSeries(id: bigint, raw: RawSeries<JoinedStrings>): MaterializedMetric<string[]> {
  return withTags({ id, timestamps: raw.timestamps, values: splitStrings(raw.values) }, raw.tags);
}

function withTags<V>(metric: MaterializedMetric<V>, joined: JoinedStrings | undefined): MaterializedMetric<V> {
  const tags = splitOptionalStrings(joined);
  if (tags !== undefined) metric.tags = tags;
  return metric;
}

abstract class BlobSetReader<H extends SetHandle<unknown, unknown>> extends Owned<H> {
  /** Number of blobs. */
  get length(): number {
    return call(() => this.live().blobCount());
  }

  /** Start times (µs) of the first and the last blob. */
  get timeRange(): [bigint, bigint] {
    const [first, last] = call(() => this.live().timeRange());
    return [first, last];
  }

  /** Every metric id in the set, ascending. */
  get metricIds(): BigUint64Array {
    return call(() => this.live().metricIds());
  }

  /** Points of a metric over every blob (0 when absent). */
  metricLength(key: MetricKey): number {
    const id = idOf(key);
    return call(() => this.live().metricLength(id));
  }

  /** Last minus first timestamp (µs) of a metric over the set; 0 when absent. */
  metricDuration(key: MetricKey): bigint {
    const id = idOf(key);
    return call(() => this.live().metricDuration(id));
  }

  /** @internal */
  protected id(key: MetricKey): bigint {
    return idOf(key);
  }
}

/** Numeric blobs of consecutive windows. Free it with `free()` (or `using`). */
export class NumericBlobSet extends BlobSetReader<NumericSetHandle> {
  private constructor(handle: NumericSetHandle) {
    super('NumericBlobSet', handle);
  }

  /** Open every blob (copied, not kept) and order them by start time. */
  static from(blobs: Iterable<Uint8Array | ArrayBuffer>, limits?: DecodeLimits): NumericBlobSet {
    return new NumericBlobSet(openSet<NumericSetHandle>(NumericBlobSetHandle, 'NumericBlobSet', blobs, limits));
  }

  /** `from()` once the parts the blobs need are loaded (see `NumericBlob.load`). */
  static async load(blobs: Iterable<Uint8Array | ArrayBuffer>, limits?: DecodeLimits): Promise<NumericBlobSet> {
    return NumericBlobSet.from(await withParts(blobs), limits);
  }

  /** One metric's series over every blob, in time order. */
  materializeMetric(key: MetricKey): MaterializedMetric<Float64Array> {
    const id = this.id(key);
    return numericSeries(id, call(() => this.live().materializeMetric(id)));
  }

  /** One metric's points with `from <= t < to` (bigint µs or number ms) over every blob. */
  range(key: MetricKey, from: TimeBound, to: TimeBound): MaterializedMetric<Float64Array> {
    const id = this.id(key);
    const [lo, hi] = [timeBound(from, 'from'), timeBound(to, 'to')];
    return numericSeries(id, call(() => this.live().range(id, lo, hi)));
  }

  /** One metric over every blob, thinned for a chart in wasm (see `NumericBlob.decimate`). */
  decimate(key: MetricKey, options: DecimateOptions): Decimated {
    const id = this.id(key);
    const [buckets, lttb, from, to] = decimateArgs(options);
    return unpackDecimated(call(() => this.live().decimate(id, buckets, lttb, from, to)));
  }

  /** Every metric's series as columns (ids ascending), like a blob's `decodeAll`. */
  materialize(): NumericColumns {
    return call(() => this.live().materialize());
  }
}

/** Text blobs of consecutive windows. Free it with `free()` (or `using`). */
export class TextBlobSet extends BlobSetReader<TextSetHandle> {
  private constructor(handle: TextSetHandle) {
    super('TextBlobSet', handle);
  }

  /** Open every blob (copied, not kept) and order them by start time. */
  static from(blobs: Iterable<Uint8Array | ArrayBuffer>, limits?: DecodeLimits): TextBlobSet {
    return new TextBlobSet(openSet(TextBlobSetHandle, 'TextBlobSet', blobs, limits));
  }

  /** `from()` once the parts the blobs need are loaded (see `NumericBlob.load`). */
  static async load(blobs: Iterable<Uint8Array | ArrayBuffer>, limits?: DecodeLimits): Promise<TextBlobSet> {
    return TextBlobSet.from(await withParts(blobs), limits);
  }

  /** One metric's series over every blob, in time order. */
  materializeMetric(key: MetricKey): MaterializedMetric<string[]> {
    const id = this.id(key);
    return textSeries(id, call(() => this.live().materializeMetric(id)));
  }

  /** One metric's points with `from <= t < to` (bigint µs or number ms) over every blob. */
  range(key: MetricKey, from: TimeBound, to: TimeBound): MaterializedMetric<string[]> {
    const id = this.id(key);
    const [lo, hi] = [timeBound(from, 'from'), timeBound(to, 'to')];
    return textSeries(id, call(() => this.live().range(id, lo, hi)));
  }

  /** Every metric's series as columns (ids ascending), like a blob's `decodeAll`. */
  materialize(): TextColumns {
    return textColumns(call(() => this.live().materialize()));
  }
}
