// The chart of the selected numeric metrics (uPlot), drawn from series
// decimated in wasm to the chart's pixel width (M4: first, min, max and last
// point per pixel column, which draws the same lines as every point). A drag
// zooms, and the visible range is read again from the blob at full
// resolution; a double-click goes back to every point.

import type * as mebo from 'mebo';
import uPlot from 'uplot';
import { $, integer, timeText } from './dom.js';
import { metricLabel, type Opened } from './view.js';

export const PALETTE = ['#3158d4', '#e0662d', '#1b9e77', '#c2338a', '#7a5af8', '#b7950b', '#0e9384', '#d92d20', '#475467', '#2e90fa', '#66c61c', '#ee46bc'];
/** Most series charted at once. */
export const MAX_SERIES = PALETTE.length;
const HEIGHT = 380;

/** What a chart shows, as the page publishes it for the headless check. */
export interface ChartReport {
  series: number;
  /** Points drawn (after decimation). */
  points: number;
  /** Points of the window the drawn points were taken from (NaN values not counted). */
  sourcePoints: number;
  decimated: boolean;
  /** The chart's time window: epoch ms, or undefined for everything. */
  view: { from: number; to: number } | undefined;
}

type Window = { from: number; to: number };

/** The chart's data for a window: each metric decimated in wasm to `width` buckets, joined on time. */
function chartData(view: Opened, shown: bigint[], width: number, window: Window | undefined) {
  let sourcePoints = 0;
  let infinite = 0;
  const tables: uPlot.AlignedData[] = shown.map((id) => {
    const options: mebo.DecimateOptions = { method: 'minmax', buckets: Math.max(64, Math.round(width)), ...(window ?? {}) };
    const d = view.decimate(id, options);
    sourcePoints += d.sourcePoints;
    const ys = Array.from(d.values, (v) => {
      if (Number.isFinite(v)) return v;
      infinite++;
      return null;
    });
    return [d.timestampsMs, ys] as uPlot.AlignedData;
  });
  // uPlot wants one x column: align the metrics on the union of their timestamps.
  const data = tables.length === 1 ? tables[0] : uPlot.join(tables);
  const points = tables.reduce((n, t) => n + t[0].length, 0);
  return { data, points, sourcePoints, infinite };
}

export class ChartView {
  private chart: uPlot | undefined;
  /** The zoomed time window (epoch ms), or undefined for everything. */
  private window: Window | undefined;
  private readonly box = $('chart');

  /** `report` hears what the chart shows after every draw. */
  constructor(private readonly report: (shown: ChartReport) => void) {}

  /** A new blob: back to every point. */
  resetWindow(): void {
    this.window = undefined;
  }

  destroy(): void {
    this.chart?.destroy();
    this.chart = undefined;
  }

  hide(): void {
    this.destroy();
    this.box.hidden = true;
  }

  resize(): void {
    this.chart?.setSize({ width: Math.max(320, this.box.clientWidth), height: HEIGHT });
  }

  render(view: Opened, selected: bigint[]): void {
    $('text-view').hidden = true;
    this.box.hidden = false;
    this.destroy();
    const shown = selected.slice(0, MAX_SERIES);
    $('view-title').textContent = `Chart — ${view.label}`;
    if (shown.length === 0) {
      $('view-note').textContent = 'Select metrics in the list to chart them.';
      this.report({ series: 0, points: 0, sourcePoints: 0, decimated: false, view: undefined });
      return;
    }
    const byId = new Map(view.metrics.map((m) => [m.id, m]));
    const width = Math.max(320, this.box.clientWidth);

    const describe = ({ points, sourcePoints, infinite }: ReturnType<typeof chartData>) => {
      const decimated = points < sourcePoints;
      const window = this.window;
      const range = window ? `, ${timeText(window.from)} – ${timeText(window.to)}` : '';
      const notes = [
        `${shown.length} metric${shown.length > 1 ? 's' : ''}${view.blobs > 1 ? ` over ${view.blobs} blobs` : ''}${range}: ` +
          (decimated
            ? `${integer.format(sourcePoints)} points decimated in wasm to ${integer.format(points)} (first, min, max and last per pixel column).`
            : `all ${integer.format(sourcePoints)} points.`),
        'Drag to zoom (the range is re-read at full resolution), double-click to reset.',
      ];
      if (selected.length > MAX_SERIES) notes.push(`Only the first ${MAX_SERIES} selected metrics are charted.`);
      const missing = window ? 0 : shown.reduce((n, id) => n + (byId.get(id)?.points ?? 0), 0) - sourcePoints;
      if (missing > 0) notes.push(`${missing} NaN values are left out.`);
      if (infinite) notes.push(`${infinite} ±Inf values are not drawn.`);
      $('view-note').textContent = notes.join(' ');
      this.report({ series: shown.length, points, sourcePoints, decimated, view: window ? { ...window } : undefined });
    };
    /** Re-read the window from the blob (not from the thinned points) and redraw. */
    const redraw = (u: uPlot) => {
      const next = chartData(view, shown, u.width, this.window);
      u.setData(next.data, this.window === undefined);
      if (this.window) u.setScale('x', { min: this.window.from, max: this.window.to });
      describe(next);
    };
    let pending = 0;

    const opts: uPlot.Options = {
      width,
      height: HEIGHT,
      ms: 1, // x values are epoch milliseconds (decimate's timestampsMs)
      cursor: {
        drag: { x: true, y: false },
        bind: {
          // Double-click: back to every point, re-read from the blob.
          dblclick: (u) => () => {
            this.window = undefined;
            redraw(u);
            return null;
          },
        },
      },
      scales: { x: { time: true } },
      axes: [{}, { size: 70 }],
      series: [
        { label: 'time', value: (_u, v) => (v == null ? '-' : timeText(v)) },
        ...shown.map((id, i) => ({
          label: metricLabel(byId.get(id)!),
          stroke: PALETTE[i],
          width: 1.5,
          spanGaps: true,
          points: { show: (byId.get(id)?.points ?? 0) <= 80 },
        })),
      ],
      hooks: {
        // A drag selects a time range: uPlot zooms to it, and the range is read
        // again from the blob so the zoomed chart is not drawn from thinned points.
        setSelect: [
          (u) => {
            if (u.select.width < 2) return;
            this.window = { from: u.posToVal(u.select.left, 'x'), to: u.posToVal(u.select.left + u.select.width, 'x') };
            cancelAnimationFrame(pending);
            pending = requestAnimationFrame(() => redraw(u));
          },
        ],
      },
    };
    const first = chartData(view, shown, width, this.window);
    this.chart = new uPlot(opts, first.data, this.box);
    describe(first);
  }
}
