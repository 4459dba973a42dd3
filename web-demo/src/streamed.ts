// The blobs of a stream as they arrive, gathered per metric into one growing
// series each, behind the same `Opened` interface as a blob or a set, so that
// the metric list and the chart draw a stream as it grows. Each blob is read
// once (decodeAll) and its points appended; the caller frees the blob.

import * as mebo from 'mebo';
import { idHex, type MetricRow, type Opened } from './view.js';

/** Points kept for the chart (16 bytes each); a longer stream is counted but drawn up to here. */
export const MAX_KEPT_POINTS = 4_000_000;

interface Series {
  row: MetricRow;
  /** Epoch ms and values, the first `n` in use. */
  xs: Float64Array;
  ys: Float64Array;
  n: number;
  /** False once a point arrived before the one kept last: sorted before it is drawn. */
  ordered: boolean;
}

/** `a` with room for at least `need` elements, its first `used` kept. */
function grown(a: Float64Array, used: number, need: number): Float64Array {
  if (need <= a.length) return a;
  const next = new Float64Array(Math.max(need, a.length * 2, 256));
  next.set(a.subarray(0, used));
  return next;
}

export class StreamedBlobs implements Opened {
  readonly kind = 'numeric';
  blobs = 0;
  /** Bytes of the stream read so far (the stream panel keeps it current). */
  size = 0;
  metrics: MetricRow[] = [];
  totalPoints = 0;
  /** Points kept for the chart: all of them, up to MAX_KEPT_POINTS. */
  keptPoints = 0;
  decodeMs = 0;
  warmMs = 0;
  options: Record<string, unknown> = {};
  startTime = 0n;
  hasTags = false;
  decoded = '';
  private readonly series = new Map<bigint, Series>();

  /** `names`: the stream's metrics' names by id, where known (a sample's); the page adds the user's. */
  constructor(
    readonly label: string,
    readonly names: Record<string, string>,
  ) {}

  /** Append `blob`'s points; a text blob is refused (the dashboard charts numeric streams). */
  add(blob: mebo.NumericBlob | mebo.TextBlob): void {
    if (!(blob instanceof mebo.NumericBlob)) throw new Error(`blob ${this.blobs + 1} of the stream is a text blob: the dashboard charts streams of numeric blobs`);
    const t0 = performance.now();
    const { ids, offsets, timestamps, values } = blob.decodeAll();
    this.decodeMs += performance.now() - t0;
    if (this.blobs === 0) {
      this.options = blob.options as unknown as Record<string, unknown>;
      this.startTime = blob.startTime;
    }
    const carried = blob.names;
    this.blobs++;
    this.totalPoints += timestamps.length;
    ids.forEach((id, i) => {
      let s = this.series.get(id);
      if (!s) {
        const hex = idHex(id);
        const own = carried?.[i];
        const row = { id, hex, name: own ?? this.names[hex], carried: own, points: 0 };
        this.metrics.push(row);
        this.series.set(id, (s = { row, xs: new Float64Array(0), ys: new Float64Array(0), n: 0, ordered: true }));
      }
      const [start, end] = [offsets[i], offsets[i + 1]];
      s.row.points += end - start;
      const room = Math.min(end - start, MAX_KEPT_POINTS - this.keptPoints);
      if (room <= 0) return;
      s.xs = grown(s.xs, s.n, s.n + room);
      s.ys = grown(s.ys, s.n, s.n + room);
      for (let k = 0; k < room; k++) {
        const x = Number(timestamps[start + k]) / 1000;
        if (s.n > 0 && x < s.xs[s.n - 1]) s.ordered = false;
        s.xs[s.n] = x;
        s.ys[s.n] = values[start + k];
        s.n++;
      }
      this.keptPoints += room;
    });
    this.decoded = `${this.decodeMs.toFixed(2)} ms in all (decodeStream, then decodeAll of each blob as it arrived)`;
  }

  /** A metric's kept points in a window (epoch ms, `from <= t < to`), NaN left out: every point, not thinned. */
  decimate(id: bigint, options: mebo.DecimateOptions): mebo.Decimated {
    const s = this.series.get(id);
    if (!s) throw new Error(`no metric 0x${idHex(id)} in the stream`);
    if (!s.ordered) this.sort(s);
    const from = options.from === undefined ? -Infinity : Number(options.from);
    const to = options.to === undefined ? Infinity : Number(options.to);
    const xs: number[] = [];
    const ys: number[] = [];
    for (let i = 0; i < s.n; i++) {
      const x = s.xs[i];
      if (x >= from && x < to && !Number.isNaN(s.ys[i])) {
        xs.push(x);
        ys.push(s.ys[i]);
      }
    }
    return { timestampsMs: Float64Array.from(xs), values: Float64Array.from(ys), sourcePoints: xs.length };
  }

  rows(): never {
    throw new Error('a stream holds numeric blobs: it has no text rows');
  }

  free(): void {
    this.series.clear();
  }

  /** Put a series that arrived out of order in time order (stable: equal times keep their arrival order). */
  private sort(s: Series): void {
    const order = Array.from({ length: s.n }, (_, i) => i).sort((a, b) => s.xs[a] - s.xs[b] || a - b);
    s.xs = Float64Array.from(order, (i) => s.xs[i]);
    s.ys = Float64Array.from(order, (i) => s.ys[i]);
    s.ordered = true;
  }
}
