// What numeric and text blobs have in common: header facts, metric lookup by
// id or name, timestamps and tags. The subclasses add the values.

import * as args from './args.js';
import { call, invalidArgument } from './errors.js';
import type { MetricKey } from './options.js';
import { Owned } from './owned.js';
import type { JoinedStrings } from './boundary.js';
import { splitOptionalStrings } from './strings.js';

/** The accessors both blob handles of the bindings have (metrics by index position). */
export interface BlobHandle {
  free(): void;
  startTime(): bigint;
  metricCount(): number;
  totalPoints(): number;
  metricIds(): BigUint64Array;
  names(): JoinedStrings | undefined;
  indexOfId(id: bigint): number;
  indexOfName(name: string): number;
  id(index: number): bigint;
  name(index: number): string | undefined;
  pointCount(index: number): number;
  timestamps(index: number): BigInt64Array;
  timestampsMs(index: number): Float64Array;
  tags(index: number): JoinedStrings | undefined;
  timestampAt(index: number, point: number): bigint;
  tagAt(index: number, point: number): string | undefined;
}

/** The typed arrays `decodeAllInto` fills. */
type KeptArray = BigInt64Array | BigUint64Array | Float64Array | Uint32Array;

/**
 * `decodeAllInto`'s array of `length` elements: `kept` itself when it has
 * exactly that many, its first `length` when it has more, else a new array
 * (a typed array is costly to make: about 0.5-1 µs in V8 even when small).
 */
export function keptOrNew<T extends KeptArray>(kept: T | undefined, length: number, make: new (length: number) => T): T {
  if (kept === undefined || kept.length < length) return new make(length);
  return kept.length === length ? kept : (kept.subarray(0, length) as T);
}

/**
 * `decodeAllInto`'s `ids` and `offsets` for a blob of `count` metrics: those
 * of `into` (the previous result) when long enough, else new ones.
 */
export function keptIdsAndOffsets(into: { ids?: unknown; offsets?: unknown }, count: number): { ids: BigUint64Array; offsets: Uint32Array } {
  const { ids, offsets } = into;
  if (!(ids === undefined || ids instanceof BigUint64Array) || !(offsets === undefined || offsets instanceof Uint32Array)) {
    throw invalidArgument("decodeAllInto's ids, when given, must be a BigUint64Array and its offsets a Uint32Array");
  }
  return { ids: keptOrNew(ids, count, BigUint64Array), offsets: keptOrNew(offsets, count + 1, Uint32Array) };
}

export abstract class BlobReader<H extends BlobHandle> extends Owned<H> {
  /** The blob's start time, microseconds since the epoch. */
  get startTime(): bigint {
    return call(() => this.live().startTime());
  }

  /** Number of metrics. */
  get length(): number {
    return call(() => this.live().metricCount());
  }

  /** Points over all metrics. */
  get totalPoints(): number {
    return call(() => this.live().totalPoints());
  }

  /** Metric ids in index order (a new array on each access). */
  get metricIds(): BigUint64Array {
    return call(() => this.live().metricIds());
  }

  /** Metric names in index order, when the blob carries them (only after a name-hash collision). */
  get names(): string[] | undefined {
    return splitOptionalStrings(call(() => this.live().names()));
  }

  /** Index position of a metric; throws METRIC_NOT_FOUND. */
  indexOf(key: MetricKey): number {
    if (typeof key === 'bigint') {
      const id = args.u64(key, 'metric id');
      return call(() => this.live().indexOfId(id));
    }
    if (typeof key === 'string') return call(() => this.live().indexOfName(key));
    throw invalidArgument('a metric is named by its id (bigint) or its name (string)');
  }

  /** True when the blob has this metric. */
  has(key: MetricKey): boolean {
    try {
      this.indexOf(key);
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'METRIC_NOT_FOUND') return false;
      throw error;
    }
  }

  /** Point count of a metric. */
  pointCount(key: MetricKey): number {
    const index = this.indexOf(key);
    return call(() => this.live().pointCount(index));
  }

  /** Timestamps (microseconds) of a metric. */
  timestamps(key: MetricKey): BigInt64Array {
    const index = this.indexOf(key);
    return call(() => this.live().timestamps(index));
  }

  /** Timestamps as epoch milliseconds (fractional), the unit of `Date` and charting libraries. */
  timestampsMs(key: MetricKey): Float64Array {
    const index = this.indexOf(key);
    return call(() => this.live().timestampsMs(index));
  }

  /** Per-point tags of a metric, or `undefined` when the blob has no tags. */
  tags(key: MetricKey): string[] | undefined {
    const index = this.indexOf(key);
    return splitOptionalStrings(call(() => this.live().tags(index)));
  }

  /** Timestamp of point `i` (O(1) for raw timestamp columns, else a decode of the metric). */
  timestampAt(key: MetricKey, i: number): bigint {
    const index = this.indexOf(key);
    const point = args.index(i, 'point index');
    return call(() => this.live().timestampAt(index, point));
  }

  /** Tag of point `i`, or `undefined` when the blob has no tags. */
  tagAt(key: MetricKey, i: number): string | undefined {
    const index = this.indexOf(key);
    const point = args.index(i, 'point index');
    return call(() => this.live().tagAt(index, point));
  }

  /** @internal A metric's id, and its name when the blob has names or `key` is one. */
  protected metricId(index: number, key: MetricKey): { id: bigint; name?: string } {
    const handle = this.live();
    const head: { id: bigint; name?: string } = { id: call(() => handle.id(index)) };
    const name = call(() => handle.name(index)) ?? (typeof key === 'string' ? key : undefined);
    if (name !== undefined) head.name = name;
    return head;
  }

  /** @internal The fields every decoded metric has. */
  protected metricHead(index: number): { id: bigint; name?: string; timestamps: BigInt64Array; tags?: string[] } {
    const handle = this.live();
    const head: { id: bigint; name?: string; timestamps: BigInt64Array; tags?: string[] } = {
      id: call(() => handle.id(index)),
      timestamps: call(() => handle.timestamps(index)),
    };
    const name = call(() => handle.name(index));
    if (name !== undefined) head.name = name;
    const tags = splitOptionalStrings(call(() => handle.tags(index)));
    if (tags !== undefined) head.tags = tags;
    return head;
  }
}
