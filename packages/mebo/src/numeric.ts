// Numeric blobs: float64 values with int64 microsecond timestamps.

import { NumericBlobHandle, NumericEncoderHandle } from '../wasm/mebo_wasm.js';
import * as args from './args.js';
import { BlobReader, type BlobHandle } from './blob.js';
import { call, invalidArgument } from './errors.js';
import { ready } from './init.js';
import {
  defaultStartTime,
  limitArgs,
  type ByteOrder,
  type Compression,
  type DecodeLimits,
  type Layout,
  type MetricKey,
  type TimestampEncoding,
  type ValueEncoding,
} from './options.js';
import { Owned, type Freeable } from './owned.js';

/** What a numeric blob's header says. Also valid as encoder options, to write the same kind of blob. */
export interface NumericBlobOptions {
  timestampEncoding: TimestampEncoding;
  valueEncoding: ValueEncoding;
  timestampCompression: Compression;
  valueCompression: Compression;
  tags: boolean;
  bigEndian: boolean;
  byteOrder: ByteOrder;
  layout: Layout;
  /** v2 index with 32-byte entries (counts or offsets beyond 16 bits). */
  extendedIndex: boolean;
  /** The blob carries metric names (written only after a name-hash collision). */
  metricNames: boolean;
}

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

/** One payload's size: as stored in the blob, and after decompression. */
export interface PayloadSize {
  bytes: number;
  decompressedBytes: number;
}

/** How a numeric blob's bytes are spent, section by section (from its header's offsets). */
export interface NumericSections {
  /** The blob's length. */
  total: number;
  header: number;
  /** The metric-names payload (0 unless the blob carries names). */
  names: number;
  index: number;
  /** The shared-timestamp table (0 unless the layout is v2-shared). */
  sharedTable: number;
  timestamps: PayloadSize;
  values: PayloadSize;
  tags: PayloadSize;
}

/** Every metric of a blob at once: metric `i` owns points `offsets[i]` to `offsets[i + 1]`. */
export interface NumericColumns {
  ids: BigUint64Array;
  offsets: Uint32Array;
  timestamps: BigInt64Array;
  values: Float64Array;
}

/** @internal The numeric handle of the bindings, described structurally. */
export interface NumericHandle extends BlobHandle {
  options(): NumericBlobOptions;
  sections(): NumericSections;
  values(index: number): Float64Array;
  valueAt(index: number, point: number): number;
  decodeAll(): NumericColumns;
  decodeAllInto(timestamps: BigInt64Array, values: Float64Array): Pick<NumericColumns, 'ids' | 'offsets'>;
}

/** An opened numeric blob. Free it with `free()` (or `using`) when done. */
export class NumericBlob extends BlobReader<NumericHandle> {
  #options: NumericBlobOptions | undefined;

  private constructor(handle: NumericHandle) {
    super(handle);
  }

  /**
   * Open a blob: header, index and payloads are checked and decompressed now;
   * metrics are decoded on demand. The bytes are copied, not kept.
   */
  static from(bytes: Uint8Array | ArrayBuffer, limits?: DecodeLimits): NumericBlob {
    ready();
    const input = args.bytes(bytes, 'blob bytes');
    const [maxBytes, maxPoints] = limitArgs(limits);
    return new NumericBlob(call(() => NumericBlobHandle.open(input, maxBytes, maxPoints)) as NumericHandle);
  }

  get options(): NumericBlobOptions {
    this.#options ??= call(() => this.live().options());
    return { ...this.#options };
  }

  /** Sizes of the blob's sections and payloads. */
  get sections(): NumericSections {
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

  /** Every metric in one call: one copy per column out of wasm memory. */
  decodeAll(): NumericColumns {
    return call(() => this.live().decodeAll());
  }

  /**
   * `decodeAll` into arrays you keep, for decoding blob after blob without
   * allocating (a dashboard's refresh): the result's `timestamps` and `values`
   * are views of the first `totalPoints` elements of `into`'s arrays when they
   * are that long, else new arrays. Pass the previous result back in.
   */
  decodeAllInto(into: Pick<NumericColumns, 'timestamps' | 'values'>): NumericColumns {
    const target = (into ?? {}) as Partial<NumericColumns>;
    if (!(target.timestamps instanceof BigInt64Array) || !(target.values instanceof Float64Array)) {
      throw invalidArgument('decodeAllInto needs { timestamps: BigInt64Array, values: Float64Array }');
    }
    const total = this.totalPoints;
    const timestamps = target.timestamps.length >= total ? target.timestamps.subarray(0, total) : new BigInt64Array(total);
    const values = target.values.length >= total ? target.values.subarray(0, total) : new Float64Array(total);
    const { ids, offsets } = call(() => this.live().decodeAllInto(timestamps, values));
    return { ids, offsets, timestamps, values };
  }
}

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
export interface NumericMetricInput {
  name?: string;
  id?: bigint;
  timestamps: BigInt64Array | readonly bigint[];
  values: Float64Array | readonly number[];
  tags?: readonly string[];
}

/** @internal The numeric encoder handle of the bindings, described structurally. */
export interface NumericEncoderBindings extends Freeable {
  startMetricName(name: string, count: number): void;
  startMetricId(id: bigint, count: number): void;
  addPoint(timestamp: bigint, value: number, tag?: string): void;
  addPoints(timestamps: BigInt64Array, values: Float64Array, tags?: string[]): void;
  endMetric(): void;
  metricCount(): number;
  finish(): Uint8Array;
}

/**
 * Builds one numeric blob: `startMetric`, points, `endMetric`, for each
 * metric, then `finish`. A refused call leaves the encoder as it was (except a
 * refused `endMetric`, which drops that metric). `finish` leaves the encoder as
 * it was: more metrics may follow and the blob be finished again.
 */
export class NumericEncoder extends Owned<NumericEncoderBindings> {
  constructor(startTime: bigint, options: NumericEncodeOptions | string = {}) {
    ready();
    const start = args.i64(startTime, 'startTime');
    const o = typeof options === 'string' ? { config: options } : options;
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
    super(handle);
  }

  /** Start a metric by name (its id is the name's xxHash64) or by id, declaring its point count. */
  startMetric(nameOrId: string | bigint, count: number): this {
    const [key, points] = args.metricStart(nameOrId, count);
    const handle = this.live();
    call(() => (typeof key === 'string' ? handle.startMetricName(key, points) : handle.startMetricId(key, points)));
    return this;
  }

  /** Add one point; `tag` is stored only when the blob has tags. */
  addPoint(timestamp: bigint, value: number, tag?: string): this {
    const ts = args.i64(timestamp, 'timestamp');
    const tagArg = args.optionalString(tag, 'tag');
    if (typeof value !== 'number') throw args.invalidNumber('value', value);
    call(() => this.live().addPoint(ts, value, tagArg));
    return this;
  }

  /** Add many points: parallel arrays, `tags` (when given) with one per point. */
  addPoints(timestamps: BigInt64Array | readonly bigint[], values: Float64Array | readonly number[], tags?: readonly string[]): this {
    const ts = args.bigint64s(timestamps, 'timestamps');
    const vs = args.float64s(values, 'values');
    const tagArgs = args.optionalStrings(tags, 'tags');
    call(() => this.live().addPoints(ts, vs, tagArgs));
    return this;
  }

  /** End the open metric: it must have exactly the declared point count. */
  endMetric(): this {
    call(() => this.live().endMetric());
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
 * Encode metrics in one call. `options` is a config string such as
 * `delta-none-gorilla-zstd` or an options object, which may also carry the
 * blob's `startTime` (default: the earliest first timestamp).
 */
export function encodeNumeric(
  metrics: readonly NumericMetricInput[],
  options: (NumericEncodeOptions & { startTime?: bigint }) | string = {},
): Uint8Array {
  const o = typeof options === 'string' ? { config: options } : options;
  const encoder = new NumericEncoder(o.startTime ?? defaultStartTime(metrics), o);
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
