// The "hosts" sample: 24 gauges of the kind a fleet's dashboard charts side
// by side, in magnitudes that differ by six orders (CPU percent beside
// network bytes near 10^7 beside a load average), made from the real hourly
// series of testdata/real (Seattle's climate normals: pressure, temperature,
// wind on a regular hourly clock, the shape of infrastructure gauges). Each
// of 8 hosts reads the series from another day on (rotated), mapped into its
// gauge's range. The blob stores ids only, as blobs usually do; the names are
// a separate text file, to paste into the page.

import { join } from 'node:path';
import * as mebo from 'mebo';
import { ROOT, readNumericInput } from 'mebo-tooling/data';

export const HOSTS = 8;
const SOURCE = 'seattle-hourly-normals.json';
/** Each gauge: its name suffix, the source metric, and the map from the source's values into the gauge's range. */
const GAUGES = [
  ['cpu.percent', 'seattle.normals.temperature', (v, lo, hi) => Math.round((5 + (80 * (v - lo)) / (hi - lo)) * 10) / 10],
  ['net.rx.bytes', 'seattle.normals.pressure', (v) => Math.round(v * 1e4)],
  ['load1', 'seattle.normals.wind', (v) => v],
];

/** The hosts' metrics in blob order (per host: CPU, network, load), each `{ name, timestamps, values }`, and the input's start time. */
export function hostMetrics() {
  const input = readNumericInput(join(ROOT, 'testdata/real', SOURCE));
  const byName = new Map(input.metrics.map((m) => [m.name, m]));
  const metrics = [];
  for (let host = 0; host < HOSTS; host++) {
    for (const [suffix, sourceName, map] of GAUGES) {
      const source = byName.get(sourceName);
      if (!source) throw new Error(`hosts sample: no ${sourceName} in testdata/real/${SOURCE}`);
      const n = source.values.length;
      const finite = Array.from(source.values).filter(Number.isFinite);
      const [lo, hi] = [Math.min(...finite), Math.max(...finite)];
      const shift = (host * 24 * 11) % n; // host k starts 11·k days later, wrapping round
      const values = Float64Array.from({ length: n }, (_, i) => map(source.values[(i + shift) % n], lo, hi));
      metrics.push({ name: `host-${String(host + 1).padStart(2, '0')}.${suffix}`, timestamps: source.timestamps, values });
    }
  }
  return { startTime: input.startTime, metrics };
}

/** The hosts sample as a blob that stores ids only, and its names, one a line. */
export function hostsBlob() {
  const { startTime, metrics } = hostMetrics();
  const bytes = mebo.encodeNumeric(
    metrics.map(({ name, timestamps, values }) => ({ id: mebo.metricId(name), timestamps, values })),
    { config: 'deltapacked-none-alp-none', startTime },
  );
  return { bytes, names: `${metrics.map((m) => m.name).join('\n')}\n`, metrics };
}
