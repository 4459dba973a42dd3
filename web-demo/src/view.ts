// What the dashboard opened: one blob, or several blobs as a set of
// consecutive windows (one series per metric over all of them). Both answer
// the same questions, so the views below do not care which it is.

import * as mebo from 'mebo';

export interface MetricRow {
  id: bigint;
  hex: string;
  /** The name the blob carries, else one the page was given for its id (`nameMetrics`). */
  name: string | undefined;
  /** The name the blob itself carries. */
  carried: string | undefined;
  points: number;
}

export interface TextRows {
  timestampsMs: Float64Array;
  values: string[];
  tags: string[] | undefined;
}

export interface Opened {
  kind: 'numeric' | 'text';
  /** How many blobs: 1, or the windows of a set. */
  blobs: number;
  label: string;
  size: number;
  metrics: MetricRow[];
  totalPoints: number;
  /** Open + decode of every metric (columnsView or decodeAll, or a set's materialize), first run. */
  decodeMs: number;
  /** The same again on a throwaway handle: the first run also compiles the decoder's code. */
  warmMs: number;
  /** How it was decoded, when not by opening it whole (a stream). */
  decoded?: string;
  /** The header options (of the first window for a set). */
  options: Record<string, unknown>;
  startTime: bigint;
  hasTags: boolean;
  /** A numeric metric thinned in wasm for a chart (see the SDK's `decimate`). */
  decimate(id: bigint, options: mebo.DecimateOptions): mebo.Decimated;
  /** A text metric's rows. */
  rows(id: bigint): TextRows;
  free(): void;
}

/** The kind a blob's header names; bytes that are no blob open as numeric, whose open then says why. */
function kindOf(bytes: Uint8Array): 'numeric' | 'text' {
  return mebo.blobKind(bytes) === 'text' ? 'text' : 'numeric';
}

/** A metric's name where the blob carries one, else its id. */
export function metricLabel(m: MetricRow): string {
  return m.name ?? `0x${m.hex}`;
}

/** A metric id as the 16 hex digits the vectors use. */
export function idHex(id: bigint): string {
  return id.toString(16).padStart(16, '0');
}

function metricRows(columns: { ids: BigUint64Array; offsets: Uint32Array }, carried: (i: number) => string | undefined, names: Record<string, string>): MetricRow[] {
  return Array.from(columns.ids, (id, i) => {
    const hex = idHex(id);
    const own = carried(i);
    return { id, hex, name: own ?? names[hex], carried: own, points: columns.offsets[i + 1] - columns.offsets[i] };
  });
}

/** Name the metrics the blob does not name from `names` (by 16-hex-digit id); returns how many are named so. */
export function nameMetrics(metrics: MetricRow[], names: Record<string, string>): number {
  let given = 0;
  for (const m of metrics) {
    m.name = m.carried ?? names[m.hex];
    if (m.carried === undefined && m.name !== undefined) given++;
  }
  return given;
}

/** Milliseconds `run` takes. */
function timed(run: () => void): number {
  const t0 = performance.now();
  run();
  return performance.now() - t0;
}

/** Open `parts` again, decode every metric and free it: what a warm open costs. */
function decodeAgain(parts: Uint8Array[], kind: 'numeric' | 'text'): void {
  if (parts.length === 1) {
    const blob = kind === 'text' ? mebo.TextBlob.from(parts[0]) : mebo.NumericBlob.from(parts[0]);
    try {
      if (blob instanceof mebo.NumericBlob) blob.columnsView();
      else blob.decodeAll();
    } finally {
      blob.free();
    }
    return;
  }
  const set = kind === 'text' ? mebo.TextBlobSet.from(parts) : mebo.NumericBlobSet.from(parts);
  try {
    set.materialize();
  } finally {
    set.free();
  }
}

const msOf = (timestamps: BigInt64Array) => Float64Array.from(timestamps, (t) => Number(t) / 1000);

/**
 * Open `parts` (one blob, or the windows of a set, all of one kind) and
 * decode every metric once, timed. `names` maps 16-hex-digit ids to names
 * for blobs that store ids only.
 */
export function open(parts: Uint8Array[], label: string, names: Record<string, string>): Opened {
  if (parts.length === 0) throw new Error('nothing to open');
  const kind = kindOf(parts[0]);
  if (parts.some((p) => kindOf(p) !== kind)) throw new Error('a set holds blobs of one kind: these mix numeric and text blobs');
  const size = parts.reduce((n, p) => n + p.length, 0);
  const Blob = kind === 'text' ? mebo.TextBlob : mebo.NumericBlob;

  if (parts.length === 1) {
    const t0 = performance.now();
    const blob = Blob.from(parts[0]);
    try {
      // Numeric: views of the blob's own columns (no copy out); the blob keeps
      // them, so each zoom's decimate reads them in place instead of decoding again.
      const columns = blob instanceof mebo.NumericBlob ? blob.columnsView() : blob.decodeAll();
      const decodeMs = performance.now() - t0;
      const blobNames = blob.names;
      const options = blob.options as unknown as Record<string, unknown>;
      return {
        kind,
        blobs: 1,
        label,
        size,
        metrics: metricRows(columns, (i) => blobNames?.[i], names),
        totalPoints: columns.timestamps.length,
        decodeMs,
        warmMs: timed(() => decodeAgain(parts, kind)),
        options,
        startTime: blob.startTime,
        hasTags: options.tags === true,
        decimate: (id, o) => (blob as mebo.NumericBlob).decimate(id, o),
        rows: (id) => {
          const text = blob as mebo.TextBlob;
          return { timestampsMs: text.timestampsMs(id), values: text.values(id), tags: text.tags(id) };
        },
        free: () => blob.free(),
      };
    } catch (error) {
      blob.free();
      throw error;
    }
  }

  // Several blobs: a set. Options and start time come from the first window.
  const first = Blob.from(parts[0]);
  const options = first.options as unknown as Record<string, unknown>;
  first.free();
  const t0 = performance.now();
  const set = kind === 'text' ? mebo.TextBlobSet.from(parts) : mebo.NumericBlobSet.from(parts);
  try {
    const columns = set.materialize();
    const decodeMs = performance.now() - t0;
    return {
      kind,
      blobs: set.length,
      label,
      size,
      metrics: metricRows(columns, () => undefined, names),
      totalPoints: columns.timestamps.length,
      decodeMs,
      warmMs: timed(() => decodeAgain(parts, kind)),
      options,
      startTime: set.timeRange[0],
      hasTags: options.tags === true,
      decimate: (id, o) => (set as mebo.NumericBlobSet).decimate(id, o),
      rows: (id) => {
        const m = (set as mebo.TextBlobSet).materializeMetric(id);
        return { timestampsMs: msOf(m.timestamps), values: m.values, tags: m.tags };
      },
      free: () => set.free(),
    };
  } catch (error) {
    set.free();
    throw error;
  }
}
