// `mebo inspect`: what a blob's header says, how its bytes are spent, what
// metrics it holds, and (numeric blobs) what the `auto` configuration would
// make of the same points.

import { NumericBlob, NumericEncoder, type NumericMetricInput, type NumericSections, type TextSections } from '../src/entries/index.js';
import { hex16, manifestOptions, type Blob } from './output.js';

export interface InspectReport {
  kind: 'numeric' | 'text';
  options: Record<string, string | boolean>;
  extendedIndex?: boolean;
  metricNames: boolean;
  startTimeMicros: string;
  metricCount: number;
  totalPoints: number;
  sections: NumericSections | TextSections;
  metrics: { id: string; name?: string; points: number }[];
  /** Numeric blobs: the same points re-encoded with `config: 'auto'` (same layout, tags, byte order), per `prefer`. */
  auto?: AutoGain[];
}

/** What `auto` would make of a blob's points under one `prefer`. */
export interface AutoGain {
  prefer: 'balanced' | 'size' | 'speed';
  /** The configuration it chose, e.g. `deltapacked-none-alp-zstd`. */
  config: string;
  /** Its blob's bytes, beside this blob's. */
  bytes: number;
  blobBytes: number;
  /** decodeAll of each, median of interleaved runs in this process, µs (a hint, not a benchmark). */
  decodeMicros: number;
  blobDecodeMicros: number;
}

const AUTO_PREFERS = ['balanced', 'size', 'speed'] as const;

/** Median µs of `runs` calls of each function, called in turn. */
function timeInterleaved(fns: (() => unknown)[], runs: number): number[] {
  const samples = fns.map(() => [] as number[]);
  for (let r = 0; r < runs; r++) {
    fns.forEach((fn, i) => {
      const t0 = performance.now();
      fn();
      samples[i]!.push((performance.now() - t0) * 1000);
    });
  }
  return samples.map((s) => s.sort((a, b) => a - b)[s.length >> 1]!);
}

/** Re-encode a numeric blob's points with `auto` under each `prefer`, and time a decode of each beside the blob. */
export function autoGains(blob: NumericBlob): AutoGain[] {
  const names = blob.names;
  const options = manifestOptions(blob);
  const metrics: NumericMetricInput[] = Array.from(blob.metricIds, (id, i) => {
    const m = blob.metric(names?.[i] ?? id);
    return { ...(names ? { name: names[i]! } : { id }), timestamps: m.timestamps, values: m.values, ...(m.tags ? { tags: m.tags } : {}) };
  });
  // One sampling pass serves the three choices (the blobs are those three encoders would write).
  const encoder = new NumericEncoder(blob.startTime, {
    config: 'auto',
    layout: options.layout as 'v1' | 'v2' | 'v2-shared',
    tags: options.tags as boolean,
    bigEndian: options.bigEndian as boolean,
  });
  let each: { prefer: AutoGain['prefer']; bytes: Uint8Array }[];
  try {
    for (const m of metrics) {
      encoder.startMetric(m.name ?? (m.id as bigint), m.timestamps.length);
      encoder.addPoints(m.timestamps, m.values, m.tags);
      encoder.endMetric();
    }
    each = encoder.finishEachPrefer();
  } finally {
    encoder.free();
  }
  const autos = AUTO_PREFERS.map((prefer) => {
    const { bytes } = each.find((e) => e.prefer === prefer)!;
    return { prefer, bytes, blob: NumericBlob.from(bytes) };
  });
  try {
    const [own, ...times] = timeInterleaved([() => blob.decodeAll(), ...autos.map((a) => () => a.blob.decodeAll())], 7);
    return autos.map((a, i) => {
      const o = manifestOptions(a.blob);
      return {
        prefer: a.prefer,
        config: `${o.timestampEncoding}-${o.timestampCompression}-${o.valueEncoding}-${o.valueCompression}`,
        bytes: a.bytes.length,
        blobBytes: blob.sections.total,
        decodeMicros: times[i]!,
        blobDecodeMicros: own!,
      };
    });
  } finally {
    for (const a of autos) a.blob.free();
  }
}

export function inspect(blob: Blob): InspectReport {
  const names = blob.names;
  const ids = blob.metricIds;
  const metrics = Array.from(ids, (id, i) => {
    const key = names?.[i] ?? id;
    const entry: { id: string; name?: string; points: number } = { id: hex16(id), points: 0 };
    if (names) entry.name = names[i]!;
    entry.points = blob.pointCount(key);
    return entry;
  });
  const report: InspectReport = {
    kind: blob instanceof NumericBlob ? 'numeric' : 'text',
    options: manifestOptions(blob),
    metricNames: blob.options.metricNames,
    startTimeMicros: String(blob.startTime),
    metricCount: blob.length,
    totalPoints: blob.totalPoints,
    sections: blob.sections,
    metrics,
  };
  if (blob instanceof NumericBlob) {
    report.extendedIndex = blob.options.extendedIndex;
    report.auto = autoGains(blob);
  }
  return report;
}

/** Epoch microseconds as an ISO-8601 UTC time with six fractional digits, when a Date can hold it. */
function isoMicros(us: bigint): string | undefined {
  const ms = us / 1000n - (us % 1000n < 0n ? 1n : 0n);
  const frac = ((us % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const date = new Date(Number(ms));
  if (Number.isNaN(date.getTime())) return undefined;
  return `${date.toISOString().slice(0, 19)}.${String(frac).padStart(6, '0')}Z`;
}

function table(rows: string[][], rightAligned: Set<number>): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) => r.map((cell, c) => (rightAligned.has(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ').trimEnd())
    .join('\n');
}

export function formatReport(file: string, r: InspectReport): string {
  const o = r.options;
  const lines: string[] = [];
  const field = (label: string, value: string) => lines.push(`${label.padEnd(12)}${value}`);
  field('file', file);
  field('kind', r.kind);
  if (r.kind === 'numeric') {
    field('timestamps', `${o.timestampEncoding}, compression ${o.timestampCompression}`);
    field('values', `${o.valueEncoding}, compression ${o.valueCompression}`);
    field('layout', `${o.layout}${r.extendedIndex ? ' (extended index entries)' : ''}`);
  } else {
    field('timestamps', String(o.timestampEncoding));
    field('data', `compression ${o.dataCompression}`);
  }
  field('tags', o.tags ? 'yes' : 'no');
  field('byte order', o.bigEndian ? 'big endian' : 'little endian');
  field('names', r.metricNames ? 'stored in the blob' : 'not stored (metrics are known by id)');
  const iso = isoMicros(BigInt(r.startTimeMicros));
  field('start time', `${r.startTimeMicros} µs${iso ? ` (${iso})` : ''}`);
  field('metrics', `${r.metricCount}, ${r.totalPoints} points`);
  lines.push('');

  const s = r.sections;
  const rows = [['section', 'bytes', 'decompressed']];
  rows.push(['header', String(s.header), ''], ['names', String(s.names), ''], ['index', String(s.index), '']);
  if ('sharedTable' in s) {
    rows.push(['shared table', String(s.sharedTable), '']);
    for (const [label, p] of [['timestamps', s.timestamps], ['values', s.values], ['tags', s.tags]] as const) {
      rows.push([`${label} payload`, String(p.bytes), String(p.decompressedBytes)]);
    }
  } else {
    rows.push(['data payload', String(s.data.bytes), String(s.data.decompressedBytes)]);
  }
  rows.push(['total', String(s.total), '']);
  lines.push(table(rows, new Set([1, 2])), '');

  const metricRows = [['id', 'name', 'points']];
  // Names with control characters are shown quoted, so one metric stays on one line.
  const shown = (name: string) => (/[\u0000-\u001f\u007f]/.test(name) ? JSON.stringify(name) : name);
  for (const m of r.metrics) metricRows.push([m.id, m.name === undefined ? '-' : shown(m.name), String(m.points)]);
  lines.push(table(metricRows, new Set([2])));

  if (r.auto) {
    const first = r.auto[0]!;
    lines.push('', `config auto: the same points re-encoded (decode: median of 7 in this process; this blob ${first.blobBytes} bytes, ${first.blobDecodeMicros.toFixed(0)} µs)`);
    const autoRows = [['prefer', 'config', 'bytes', 'vs this blob', 'decode µs']];
    for (const a of r.auto) {
      autoRows.push([a.prefer, a.config, String(a.bytes), `${((a.bytes / a.blobBytes) * 100).toFixed(0)}%`, a.decodeMicros.toFixed(0)]);
    }
    lines.push(table(autoRows, new Set([2, 3, 4])));
  }
  return `${lines.join('\n')}\n`;
}
