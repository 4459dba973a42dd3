// Text blobs: string values (at most 255 bytes each) with int64 microsecond timestamps.

import { TextBlobHandle } from '../wasm/mebo_wasm.js';
import * as args from './args.js';
import { BlobReader, keptIdsAndOffsets, keptOrNew, type BlobHandle } from './blob.js';
import type { JoinedStrings, RawSeries, RawTextColumns, TextBlobOptions, TextSections } from './boundary.js';
import { call, invalidArgument } from './errors.js';
import { ready, stage } from './module.js';
import { checkParts, ensureParts } from './parts.js';
import { limitArgs, type DecodeLimits, type MetricKey } from './options.js';
import { splitOptionalStrings, splitStrings } from './strings.js';
import { timeBound, type TimeBound } from './series.js';

// What a text blob's header says and its sections, and the columns as the
// bindings return them: declared with the bindings that build them (see
// boundary.ts).
export type { RawTextColumns, TextBlobOptions, TextSections, TextTimestampEncoding } from './boundary.js';

/** One decoded metric. */
export interface TextMetric {
  id: bigint;
  /** From the blob's names when it has them, else the name it was looked up by. */
  name?: string;
  timestamps: BigInt64Array;
  values: string[];
  /** Per-point tags, when the blob has tags. */
  tags?: string[];
}

/**
 * Every metric of a blob at once: metric `i` owns points `offsets[i]` to
 * `offsets[i + 1]`. Values (and tags) come as Arrow's dictionary vectors do:
 * each distinct string once in `dictionary`, and per point its index in
 * `codes`; one JavaScript string is made per distinct value, not per point.
 * `values` (and `tags`) give the per-point strings, built on first access.
 */
export interface TextColumns {
  ids: BigUint64Array;
  offsets: Uint32Array;
  timestamps: BigInt64Array;
  /** Each distinct value once, in order of first appearance. */
  dictionary: string[];
  /** Per point, the index of its value in `dictionary`. */
  codes: Uint32Array;
  /** Per point, its value: `dictionary[codes[i]]`. */
  readonly values: string[];
  /** Present when the blob has tags: each distinct tag once. */
  tagDictionary?: string[];
  /** Present when the blob has tags: per point, the index of its tag in `tagDictionary`. */
  tagCodes?: Uint32Array;
  /** Per point, its tag, when the blob has tags. */
  readonly tags?: string[];
}

/** Per-point strings of a dictionary vector. */
function expand(dictionary: string[], codes: Uint32Array): string[] {
  const out = new Array<string>(codes.length);
  for (let i = 0; i < codes.length; i++) out[i] = dictionary[codes[i]];
  return out;
}

class DictionaryColumns implements TextColumns {
  #values: string[] | undefined;
  #tags: string[] | undefined;
  readonly tagDictionary?: string[];
  readonly tagCodes?: Uint32Array;

  constructor(
    readonly ids: BigUint64Array,
    readonly offsets: Uint32Array,
    readonly timestamps: BigInt64Array,
    readonly dictionary: string[],
    readonly codes: Uint32Array,
    tags?: { dictionary: string[]; codes: Uint32Array },
  ) {
    if (tags) {
      this.tagDictionary = tags.dictionary;
      this.tagCodes = tags.codes;
    }
  }

  get values(): string[] {
    return (this.#values ??= expand(this.dictionary, this.codes));
  }

  get tags(): string[] | undefined {
    if (!this.tagDictionary || !this.tagCodes) return undefined;
    return (this.#tags ??= expand(this.tagDictionary, this.tagCodes));
  }
}

/** @internal TextColumns from the bindings' raw columns (a blob's decodeAll, a set's materialize). */
export function textColumns(raw: RawTextColumns): TextColumns {
  return dictionaryColumns({
    ...raw,
    dictionary: splitStrings(raw.dictionary),
    tagDictionary: raw.tagDictionary && splitStrings(raw.tagDictionary),
  });
}

/**
 * TextColumns from their fields, as they arrive from a worker (structured
 * clone keeps the arrays, not the class): what `mebo/worker` returns.
 */
export function dictionaryColumns(c: Pick<TextColumns, 'ids' | 'offsets' | 'timestamps' | 'dictionary' | 'codes' | 'tagDictionary' | 'tagCodes'>): TextColumns {
  const ok =
    typeof c === 'object' && c !== null && c.ids instanceof BigUint64Array && c.offsets instanceof Uint32Array && c.timestamps instanceof BigInt64Array && Array.isArray(c.dictionary) && c.codes instanceof Uint32Array;
  if (!ok) throw invalidArgument('dictionaryColumns needs { ids, offsets, timestamps, dictionary, codes } as decodeAll gives them');
  const tags = c.tagDictionary && c.tagCodes ? { dictionary: c.tagDictionary, codes: c.tagCodes } : undefined;
  return new DictionaryColumns(c.ids, c.offsets, c.timestamps, c.dictionary, c.codes, tags);
}

/**
 * The text handle of the bindings, described structurally (the
 * compiler checks the glue's class against it where `from` opens one).
 */
interface TextHandle extends BlobHandle {
  options(): TextBlobOptions;
  sections(): TextSections;
  values(index: number): JoinedStrings;
  valueAt(index: number, point: number): string;
  range(index: number, from: bigint, to: bigint): RawSeries<JoinedStrings>;
  decodeAll(): RawTextColumns;
  decodeAllInto(timestamps: BigInt64Array, codes: Uint32Array, tagCodes: Uint32Array | undefined, ids: BigUint64Array, offsets: Uint32Array): Pick<RawTextColumns, 'dictionary' | 'tagDictionary'>;
}

/** An opened text blob. Free it with `free()` (or `using`) when done. */
export class TextBlob extends BlobReader<TextHandle> {
  #options: TextBlobOptions | undefined;

  private constructor(handle: TextHandle) {
    super('TextBlob', handle);
  }

  /**
   * `from()` once the parts the blob needs are loaded: with `mebo/decode`'s
   * light core (a page's default) the zstd part is fetched the first time a
   * blob has a zstd payload (once; concurrent calls share it). A part that
   * cannot be loaded is WASM_LOAD naming it. Elsewhere the same as `from()`.
   */
  static async load(bytes: Uint8Array | ArrayBuffer, limits?: DecodeLimits): Promise<TextBlob> {
    ready();
    await ensureParts(args.bytes(bytes, 'blob bytes'));
    return TextBlob.from(bytes, limits);
  }

  /**
   * Open a blob: header, index and data payload are checked and decompressed
   * now; metrics are decoded on demand. The bytes are copied, not kept.
   */
  static from(bytes: Uint8Array | ArrayBuffer, limits?: DecodeLimits): TextBlob {
    ready();
    const input = args.bytes(bytes, 'blob bytes');
    const [maxBytes, maxPoints] = limitArgs(limits);
    checkParts(input, 'TextBlob');
    return new TextBlob(
      call(() => {
        stage([input]);
        return TextBlobHandle.openStaged(maxBytes, maxPoints);
      }),
    );
  }

  get options(): TextBlobOptions {
    this.#options ??= call(() => this.live().options());
    return { ...this.#options };
  }

  /** Sizes of the blob's sections and data payload. */
  get sections(): TextSections {
    return call(() => this.live().sections());
  }

  /** One metric, decoded. */
  metric(key: MetricKey): TextMetric {
    const index = this.indexOf(key);
    const metric: TextMetric = { ...this.metricHead(index), values: splitStrings(call(() => this.live().values(index))) };
    if (metric.name === undefined && typeof key === 'string') metric.name = key;
    return metric;
  }

  /** Values of a metric. */
  values(key: MetricKey): string[] {
    const index = this.indexOf(key);
    return splitStrings(call(() => this.live().values(index)));
  }

  /** Value of point `i` (text rows vary in size: this walks the metric's rows). */
  valueAt(key: MetricKey, i: number): string {
    const index = this.indexOf(key);
    const point = args.index(i, 'point index');
    return call(() => this.live().valueAt(index, point));
  }

  /**
   * A metric's points with `from <= t < to` (bigint µs or number ms), in
   * stored order; timestamps need not be sorted. An empty range is an empty
   * result.
   */
  range(key: MetricKey, from: TimeBound, to: TimeBound): TextMetric {
    const index = this.indexOf(key);
    const [lo, hi] = [timeBound(from, 'from'), timeBound(to, 'to')];
    const raw = call(() => this.live().range(index, lo, hi));
    const metric: TextMetric = { ...this.metricId(index, key), timestamps: raw.timestamps, values: splitStrings(raw.values) };
    const tags = splitOptionalStrings(raw.tags);
    if (tags !== undefined) metric.tags = tags;
    return metric;
  }

  /** Every metric in one call into wasm; values and tags as dictionaries (see `TextColumns`). */
  decodeAll(): TextColumns {
    return textColumns(call(() => this.live().decodeAll()));
  }

  /**
   * `decodeAll` into arrays you keep, for decoding blob after blob without
   * allocating: each array of the result is `into`'s own (or a view of its
   * first elements) when it is long enough, else a new one. `ids`, `offsets`
   * and `tagCodes` may be left out. Pass the previous result back in.
   */
  decodeAllInto(into: Pick<TextColumns, 'timestamps' | 'codes' | 'tagCodes'> & Partial<Pick<TextColumns, 'ids' | 'offsets'>>): TextColumns {
    const target = (into ?? {}) as Partial<TextColumns>;
    if (!(target.timestamps instanceof BigInt64Array) || !(target.codes instanceof Uint32Array) || (target.tagCodes !== undefined && !(target.tagCodes instanceof Uint32Array))) {
      throw invalidArgument('decodeAllInto needs { timestamps: BigInt64Array, codes: Uint32Array, tagCodes?: Uint32Array }');
    }
    const { ids, offsets } = keptIdsAndOffsets(target, this.length);
    const total = this.totalPoints;
    const timestamps = keptOrNew(target.timestamps, total, BigInt64Array);
    const codes = keptOrNew(target.codes, total, Uint32Array);
    const tagCodes = this.options.tags ? keptOrNew(target.tagCodes, total, Uint32Array) : undefined;
    const raw = call(() => this.live().decodeAllInto(timestamps, codes, tagCodes, ids, offsets));
    return textColumns({ ...raw, ids, offsets, timestamps, codes, tagCodes });
  }
}
