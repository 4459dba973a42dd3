// `mebo inspect`: what a blob's header says, how its bytes are spent, and
// what metrics it holds.

import { NumericBlob, type NumericSections, type TextSections } from '../src/index.js';
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
  if (blob instanceof NumericBlob) report.extendedIndex = blob.options.extendedIndex;
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
  return `${lines.join('\n')}\n`;
}
