// Numeric blobs: float64 values with int64 microsecond timestamps.

import { NumericBlobHandle } from '../wasm/mebo_wasm.js';
import * as args from './args.js';
import { BlobReader, keptIdsAndOffsets, keptOrNew, type BlobHandle } from './blob.js';
import type { NumericBlobOptions, NumericColumns, NumericSections, RawSeries } from './boundary.js';
import { call, invalidArgument } from './errors.js';
import { ready, stage, wasmMemory } from './module.js';
import { checkParts, checkRest, openWithParts, restReady } from './parts.js';
import { limitArgs, type DecodeLimits, type MetricKey } from './options.js';
import { decimateArgs, timeBound, unpackDecimated, type Decimated, type DecimateOptions, type TimeBound } from './series.js';
import { splitOptionalStrings } from './strings.js';

// What a numeric blob's header says, its sections and its columns: declared
// with the bindings that build them (see boundary.ts).
export type { NumericBlobOptions, NumericColumns, NumericSections, PayloadSize } from './boundary.js';

/** One decoded metric. */
export interface NumericMetric {
  id: bigint;
  /** From the blob's names when it has them, else the name it was looked up by. */
  name?: string;
  timestamps: BigInt64Array;
  values: Float64Array;
  /** Per-point tags, when the blob has tags. */
  tags?: string[];
}

/**
 * The numeric handle of the bindings, described structurally (the
 * compiler checks the glue's class against it where `from` opens one).
 */
interface NumericHandle extends BlobHandle {
  options(): NumericBlobOptions;
  sections(): NumericSections;
  values(index: number): Float64Array;
  valueAt(index: number, point: number): number;
  decodeAll(): NumericColumns;
  decodeAllInto(timestamps: BigInt64Array, values: Float64Array, ids: BigUint64Array, offsets: Uint32Array): void;
  decodeAllView(): Uint32Array;
  range(index: number, from: bigint, to: bigint): RawSeries<Float64Array>;
  decimate(index: number, buckets: number, lttb: boolean, from?: bigint, to?: bigint): Float64Array;
}

/** An opened numeric blob. Free it with `free()` (or `using`) when done. */
export class NumericBlob extends BlobReader<NumericHandle> {
  #options: NumericBlobOptions | undefined;

  private constructor(handle: NumericHandle) {
    super('NumericBlob', handle);
  }

  /**
   * `from()` once the parts the blob needs are loaded: with `mebo/decode`'s
   * light core (a page's default) the zstd part is fetched the first time a
   * blob has a zstd payload (once; concurrent calls share it). A part that
   * cannot be loaded is WASM_LOAD naming it. Elsewhere the same as `from()`.
   */
  static async load(bytes: Uint8Array | ArrayBuffer, limits?: DecodeLimits): Promise<NumericBlob> {
    ready();
    return openWithParts(args.bytes(bytes, 'blob bytes'), () => NumericBlob.from(bytes, limits));
  }

  /**
   * Open a blob: header, index and payloads are checked and decompressed now;
   * metrics are decoded on demand. The bytes are copied, not kept.
   */
  static from(bytes: Uint8Array | ArrayBuffer, limits?: DecodeLimits): NumericBlob {
    ready();
    const input = args.bytes(bytes, 'blob bytes');
    const [maxBytes, maxPoints] = limitArgs(limits);
    checkParts(input, 'NumericBlob');
    return new NumericBlob(
      call(() => {
        stage([input]);
        return NumericBlobHandle.openStaged(maxBytes, maxPoints);
      }),
    );
  }

  get options(): NumericBlobOptions {
    this.#options ??= call(() => this.live().options());
    return { ...this.#options };
  }

  /** Sizes of the blob's sections and payloads. */
  get sections(): NumericSections {
    checkRest('NumericBlob.sections');
    return call(() => this.live().sections());
  }

  /** One metric, decoded. */
  metric(key: MetricKey): NumericMetric {
    const index = this.indexOf(key);
    const metric: NumericMetric = { ...this.metricHead(index), values: call(() => this.live().values(index)) };
    if (metric.name === undefined && typeof key === 'string') metric.name = key;
    return metric;
  }

  /** Values of a metric. */
  values(key: MetricKey): Float64Array {
    const index = this.indexOf(key);
    return call(() => this.live().values(index));
  }

  /** Value of point `i` (O(1) for raw value columns, else a decode of the metric). */
  valueAt(key: MetricKey, i: number): number {
    const index = this.indexOf(key);
    const point = args.index(i, 'point index');
    return call(() => this.live().valueAt(index, point));
  }

  /**
   * A metric's points with `from <= t < to` (bigint µs or number ms), in
   * stored order; timestamps need not be sorted. An empty range is an empty
   * result.
   */
  range(key: MetricKey, from: TimeBound, to: TimeBound): NumericMetric {
    checkRest('NumericBlob.range');
    const index = this.indexOf(key);
    const [lo, hi] = [timeBound(from, 'from'), timeBound(to, 'to')];
    const raw = call(() => this.live().range(index, lo, hi));
    const metric: NumericMetric = { ...this.metricId(index, key), timestamps: raw.timestamps, values: raw.values };
    const tags = splitOptionalStrings(raw.tags);
    if (tags !== undefined) metric.tags = tags;
    return metric;
  }

  /**
   * A metric thinned for a chart of about `buckets` pixels, computed in wasm:
   * `{ method: 'minmax' | 'lttb', buckets, from?, to? }` (see `DecimateOptions`).
   */
  decimate(key: MetricKey, options: DecimateOptions): Decimated {
    checkRest('NumericBlob.decimate');
    const index = this.indexOf(key);
    const [buckets, lttb, from, to] = decimateArgs(options);
    return unpackDecimated(call(() => this.live().decimate(index, buckets, lttb, from, to)));
  }

  /** Every metric in one call: one copy per column out of wasm memory. */
  decodeAll(): NumericColumns {
    if (!restReady()) return this.decodeMetricByMetric();
    return call(() => this.live().decodeAll());
  }

  /**
   * `decodeAll`'s columns from the metrics read one by one: a split light
   * core's first blob, before its rest (whose call this is) has followed.
   */
  private decodeMetricByMetric(): NumericColumns {
    const handle = this.live();
    const count = this.length;
    const ids = this.metricIds;
    const offsets = new Uint32Array(count + 1);
    const columns = Array.from({ length: count }, (_, i) => call(() => [handle.timestamps(i), handle.values(i)] as const));
    columns.forEach(([ts], i) => (offsets[i + 1] = offsets[i]! + ts.length));
    const timestamps = new BigInt64Array(offsets[count]!);
    const values = new Float64Array(offsets[count]!);
    columns.forEach(([ts, vs], i) => {
      timestamps.set(ts, offsets[i]);
      values.set(vs, offsets[i]);
    });
    return { ids, offsets, timestamps, values };
  }

  /**
   * Every metric at once without a copy: the columns are decoded once into
   * memory this blob owns and read through views of the module's memory.
   * Fastest where fresh typed arrays are expensive (browsers). The views are
   * valid until `free()`; read them through the returned object each time:
   * its getters make new views when the module's memory has grown (which
   * detaches old ones), and throw FREED after `free()`. Copy (`slice()`)
   * what must outlive the blob.
   */
  columnsView(): NumericColumns {
    checkRest('NumericBlob.columnsView');
    const [ids, offsets, timestamps, values, metrics, points] = call(() => this.live().decodeAllView());
    let buffer: ArrayBuffer | undefined;
    let views: NumericColumns | undefined;
    const current = (): NumericColumns => {
      this.live(); // FREED after free(): the memory behind the views is gone
      const now = wasmMemory().buffer;
      if (views === undefined || buffer !== now) {
        buffer = now;
        views = {
          ids: new BigUint64Array(now, ids, metrics),
          offsets: new Uint32Array(now, offsets, metrics + 1),
          timestamps: new BigInt64Array(now, timestamps, points),
          values: new Float64Array(now, values, points),
        };
      }
      return views;
    };
    return {
      get ids() {
        return current().ids;
      },
      get offsets() {
        return current().offsets;
      },
      get timestamps() {
        return current().timestamps;
      },
      get values() {
        return current().values;
      },
    };
  }

  /**
   * `decodeAll` into arrays you keep, for decoding blob after blob without
   * allocating (a dashboard's refresh): each array of the result is `into`'s
   * own (or a view of its first elements) when it is long enough, else a
   * new one. `ids` and `offsets` may be left out. Pass the previous result back in.
   */
  decodeAllInto(into: Pick<NumericColumns, 'timestamps' | 'values'> & Partial<Pick<NumericColumns, 'ids' | 'offsets'>>): NumericColumns {
    checkRest('NumericBlob.decodeAllInto');
    const target = (into ?? {}) as Partial<NumericColumns>;
    if (!(target.timestamps instanceof BigInt64Array) || !(target.values instanceof Float64Array)) {
      throw invalidArgument('decodeAllInto needs { timestamps: BigInt64Array, values: Float64Array }');
    }
    const { ids, offsets } = keptIdsAndOffsets(target, this.length);
    const total = this.totalPoints;
    const timestamps = keptOrNew(target.timestamps, total, BigInt64Array);
    const values = keptOrNew(target.values, total, Float64Array);
    call(() => this.live().decodeAllInto(timestamps, values, ids, offsets));
    return { ids, offsets, timestamps, values };
  }
}
