// The chart of the selected numeric metrics, drawn from series decimated in
// wasm to the chart's pixel width (M4: first, min, max and last point per
// pixel column, which draws the same lines as every point), in one panel per
// scale (panels.ts). A drag zooms, and the visible range is read again from
// the blob at full resolution; a double-click goes back to every point.

import type * as mebo from 'mebo';
import { $, integer, timeText } from './dom.js';
import { ChartPanels, type PanelReport, type PanelSeries, type Window } from './panels.js';
import { metricLabel, type Opened } from './view.js';

export const PALETTE = ['#3158d4', '#e0662d', '#1b9e77', '#c2338a', '#7a5af8', '#b7950b', '#0e9384', '#d92d20', '#475467', '#2e90fa', '#66c61c', '#ee46bc'];
/** Most series charted at once. */
export const MAX_SERIES = PALETTE.length;
/** Series with at most this many points mark each point. */
export const DOTS_UP_TO = 80;

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
  /** Each panel's legend and value-axis labels. */
  panels: PanelReport[];
}

/** The chart's data for a window: each metric decimated in wasm to `width` buckets. */
function chartData(view: Opened, shown: bigint[], width: number, window: Window | undefined) {
  let sourcePoints = 0;
  let infinite = 0;
  let points = 0;
  const byId = new Map(view.metrics.map((m) => [m.id, m]));
  const series: PanelSeries[] = shown.map((id, i) => {
    const options: mebo.DecimateOptions = { method: 'minmax', buckets: Math.max(64, Math.round(width)), ...(window ?? {}) };
    const d = view.decimate(id, options);
    sourcePoints += d.sourcePoints;
    points += d.timestampsMs.length;
    const ys = Array.from(d.values, (v) => {
      if (Number.isFinite(v)) return v;
      infinite++;
      return null;
    });
    const m = byId.get(id)!;
    return { key: m.hex, label: metricLabel(m), color: PALETTE[i], xs: d.timestampsMs, ys, dots: m.points <= DOTS_UP_TO };
  });
  return { series, points, sourcePoints, infinite };
}

export class ChartView {
  /** The zoomed time window (epoch ms), or undefined for everything. */
  private window: Window | undefined;
  private readonly box = $('chart');
  private readonly panels: ChartPanels;
  /** Redraws what is shown (set by `render`), for a zoom or a reset. */
  private redraw: () => void = () => {};
  /** What was reported last: the panels' part is reported again once they drew. */
  private last: ChartReport | undefined;

  /** `report` hears what the chart shows after every draw. */
  constructor(private readonly report: (shown: ChartReport) => void) {
    let pending = 0;
    const later = () => {
      cancelAnimationFrame(pending);
      pending = requestAnimationFrame(() => this.redraw());
    };
    this.panels = new ChartPanels(
      this.box,
      (window) => {
        this.window = window;
        later();
      },
      () => {
        this.window = undefined;
        later();
      },
      () => {
        if (this.last) this.report((this.last = { ...this.last, panels: this.panels.report() }));
      },
    );
  }

  /** A new blob: back to every point. */
  resetWindow(): void {
    this.window = undefined;
  }

  hide(): void {
    this.panels.destroy();
    this.box.hidden = true;
  }

  resize(): void {
    this.panels.resize();
  }

  render(view: Opened, selected: bigint[]): void {
    $('text-view').hidden = true;
    this.box.hidden = false;
    const shown = selected.slice(0, MAX_SERIES);
    $('view-title').textContent = `Chart — ${view.label}`;
    if (shown.length === 0) {
      this.panels.destroy();
      $('view-note').textContent = 'Select metrics in the list to chart them.';
      this.report((this.last = { series: 0, points: 0, sourcePoints: 0, decimated: false, view: undefined, panels: [] }));
      return;
    }
    const byId = new Map(view.metrics.map((m) => [m.id, m]));
    this.redraw = () => {
      const window = this.window;
      const { series, points, sourcePoints, infinite } = chartData(view, shown, Math.max(320, this.box.clientWidth), window);
      this.panels.show(series, window);
      const decimated = points < sourcePoints;
      const range = window ? `, ${timeText(window.from)} – ${timeText(window.to)}` : '';
      const notes = [
        `${shown.length} metric${shown.length > 1 ? 's' : ''}${view.blobs > 1 ? ` over ${view.blobs} blobs` : ''}${range}: ` +
          (decimated
            ? `${integer.format(sourcePoints)} points decimated in wasm to ${integer.format(points)} (first, min, max and last per pixel column).`
            : `all ${integer.format(sourcePoints)} points.`),
        this.panels.panels > 1 ? `${this.panels.panels} panels, one per scale, so that no metric lies flat beside a larger one.` : '',
        'Drag to zoom (the range is re-read at full resolution), double-click to reset.',
      ];
      if (selected.length > MAX_SERIES) notes.push(`Only the first ${MAX_SERIES} selected metrics are charted.`);
      const missing = window ? 0 : shown.reduce((n, id) => n + (byId.get(id)?.points ?? 0), 0) - sourcePoints;
      if (missing > 0) notes.push(`${missing} NaN values are left out.`);
      if (infinite) notes.push(`${infinite} ±Inf values are not drawn.`);
      $('view-note').textContent = notes.filter(Boolean).join(' ');
      this.report((this.last = { series: shown.length, points, sourcePoints, decimated, view: window ? { ...window } : undefined, panels: this.panels.report() }));
    };
    this.redraw();
  }
}
