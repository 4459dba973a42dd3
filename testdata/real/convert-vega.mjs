#!/usr/bin/env node
// Regenerates the real series taken from the npm package vega-datasets 3.2.1
// (its data/ folder) into the conformance vectors' input schema (timestamps as
// decimal int64 microseconds, values as IEEE-754 bits in 16 hex digits, metric
// ids as the xxHash64 of the name). Plain Node, no dependencies:
//
//   npm pack vega-datasets@3.2.1 && tar xzf vega-datasets-3.2.1.tgz
//   node testdata/real/convert-vega.mjs package/data
//
// Each value is the number the source file spells, parsed as a float64; no
// rounding, no gap filling. What each series is, and its licence: README.md.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const source = process.argv[2];
if (!source) {
  process.stderr.write('usage: node testdata/real/convert-vega.mjs <vega-datasets>/data\n');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));

// xxHash64, seed 0: the metric id of a name (the format's; written out here so the script needs nothing).
const M64 = (1n << 64n) - 1n;
const P1 = 11400714785074694791n, P2 = 14029467366897019727n, P3 = 1609587929392839161n, P4 = 9650029242287828579n, P5 = 2870177450012600261n;
const rotl = (x, r) => ((x << BigInt(r)) | (x >> BigInt(64 - r))) & M64;
const round = (acc, lane) => (rotl((acc + lane * P2) & M64, 31) * P1) & M64;
const merge = (acc, v) => ((((acc ^ round(0n, v)) * P1) & M64) + P4) & M64;
function xxh64(text) {
  const b = new TextEncoder().encode(text);
  const dv = new DataView(b.buffer);
  const u64 = (i) => dv.getBigUint64(i, true);
  const u32 = (i) => BigInt(dv.getUint32(i, true));
  let i = 0;
  let h;
  if (b.length >= 32) {
    let v1 = (P1 + P2) & M64, v2 = P2, v3 = 0n, v4 = (0n - P1) & M64;
    for (; i + 32 <= b.length; i += 32) {
      v1 = round(v1, u64(i)); v2 = round(v2, u64(i + 8)); v3 = round(v3, u64(i + 16)); v4 = round(v4, u64(i + 24));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) & M64;
    h = merge(merge(merge(merge(h, v1), v2), v3), v4);
  } else {
    h = P5;
  }
  h = (h + BigInt(b.length)) & M64;
  for (; i + 8 <= b.length; i += 8) h = ((rotl(h ^ round(0n, u64(i)), 27) * P1) & M64) + P4 & M64;
  if (i + 4 <= b.length) { h = ((rotl(h ^ ((u32(i) * P1) & M64), 23) * P2) & M64) + P3 & M64; i += 4; }
  for (; i < b.length; i++) h = (rotl(h ^ ((BigInt(b[i]) * P5) & M64), 11) * P1) & M64;
  h ^= h >> 33n; h = (h * P2) & M64; h ^= h >> 29n; h = (h * P3) & M64; h ^= h >> 32n;
  return h.toString(16).padStart(16, '0');
}

const bits = (v) => {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, v);
  return dv.getBigUint64(0).toString(16).padStart(16, '0');
};
const number = (text, where) => {
  const v = Number(text);
  if (text === '' || !Number.isFinite(v)) throw new Error(`${where}: not a number: ${JSON.stringify(text)}`);
  return v;
};
const micros = (ms) => (BigInt(ms) * 1000n).toString();

/** metrics: [{ name, points: [[epochMs, value], ...] }] sorted by time, written in the vectors' schema. */
function write(dataset, metrics) {
  const start = Math.min(...metrics.map((m) => m.points[0][0]));
  const doc = {
    dataset,
    kind: 'numeric',
    startTimeMicros: micros(start),
    identifier: 'name',
    metrics: metrics.map(({ name, points }) => ({
      name,
      id: xxh64(name),
      timestamps: points.map(([t]) => micros(t)),
      values: points.map(([, v]) => bits(v)),
    })),
  };
  const file = join(here, `${dataset}.json`);
  writeFileSync(file, `${JSON.stringify(doc)}\n`);
  const points = metrics.reduce((n, m) => n + m.points.length, 0);
  process.stderr.write(`${file}: ${metrics.length} metrics, ${points} points\n`);
}

function csv(file) {
  const [head, ...rows] = readFileSync(join(source, file), 'utf8').trim().split('\n');
  const names = head.split(',');
  return rows.map((row) => Object.fromEntries(row.split(',').map((cell, i) => [names[i], cell])));
}

// 1. Seattle hourly climate normals (NOAA), the first 90 days: a regular hourly clock, one decimal,
//    values that repeat from hour to hour (pressure, temperature, wind).
{
  const rows = csv('seattle-weather-hourly-normals.csv').slice(0, 90 * 24);
  const at = (r) => Date.parse(`${r.date}Z`);
  write(
    'seattle-hourly-normals',
    ['pressure', 'temperature', 'wind'].map((field) => ({
      name: `seattle.normals.${field}`,
      points: rows.map((r, i) => [at(r), number(r[field], `row ${i} ${field}`)]),
    })),
  );
}

// 2. USGS earthquakes of one week (2018-01-31 to 2018-02-07): irregular millisecond clock,
//    magnitudes with one or two decimals, depths in km.
{
  const features = JSON.parse(readFileSync(join(source, 'earthquakes.json'), 'utf8')).features;
  const events = features
    .map((f) => ({ t: f.properties.time, mag: f.properties.mag, depth: f.geometry.coordinates[2] }))
    .sort((a, b) => a.t - b.t);
  write('usgs-earthquakes-week', [
    { name: 'usgs.quake.magnitude', points: events.map((e, i) => [e.t, number(String(e.mag), `event ${i} mag`)]) },
    { name: 'usgs.quake.depth_km', points: events.map((e, i) => [e.t, number(String(e.depth), `event ${i} depth`)]) },
  ]);
}

// 3. Monthly stock prices of five companies, 2000-2010: prices with two decimals.
{
  const rows = csv('stocks.csv');
  const symbols = [...new Set(rows.map((r) => r.symbol))];
  write(
    'stocks-monthly',
    symbols.map((symbol) => ({
      name: `stocks.${symbol.toLowerCase()}.price`,
      points: rows
        .filter((r) => r.symbol === symbol)
        .map((r, i) => [Date.parse(`${r.date} UTC`), number(r.price, `${symbol} row ${i}`)])
        .sort((a, b) => a[0] - b[0]),
    })),
  );
}
