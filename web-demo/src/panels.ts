// The chart's canvases: one uPlot panel per group of series of alike scale
// (scales.ts), stacked on one time axis, the cursor shared between them, each
// value axis as wide as its widest label (axis.ts) and all of them as wide as
// the widest, so the panels' plots line up. A drag on any panel picks a time
// window and a double-click asks for everything; the owner decides what to
// draw then and calls `show` again.

import uPlot from 'uplot';
import { AXIS_FONT, axisWidth, TICK_GAP, TICK_SIZE, textWidth, tickLabels, valueText } from './axis.js';
import { timeText } from './dom.js';
import { extentOf, groupByScale } from './scales.js';

/** One series to draw: x as epoch ms, ascending. */
export interface PanelSeries {
  /** Stable key (a metric id): the same keys in the same groups redraw in place. */
  key: string;
  label: string;
  color: string;
  xs: Float64Array | number[];
  ys: (number | null)[];
  /** Mark each point (few points). */
  dots: boolean;
}

/** What a panel drew, as the page publishes it for the headless check. */
export interface PanelReport {
  legend: string[];
  /** The value axis' width and each tick label with its left edge in CSS pixels from the canvas' left. */
  axisWidth: number;
  labels: { text: string; left: number }[];
}

export type Window = { from: number; to: number };

const SINGLE_HEIGHT = 380;
/** Several panels share about this height, none lower than MIN_HEIGHT. */
const STACK_HEIGHT = 600;
const MIN_HEIGHT = 180;
/** Least pixels between value ticks (uPlot's default is 30): short panels still get three or four. */
const TICK_SPACE = 24;

/** Steps between value ticks: 1, 2, 2.5 and 5 times every power of ten float64 holds (uPlot's own stop at 10^16). */
const Y_STEPS = Array.from({ length: 617 }, (_, k) => k - 308).flatMap((e) => [1, 2, 2.5, 5].map((m) => Number(`${m}e${e}`)));

let syncKeys = 0;

export class ChartPanels {
  private plots: uPlot[] = [];
  private layout = '';
  private readonly sync = `panels-${++syncKeys}`;
  /** The widest axis any panel asked for: every panel takes it, so the plots line up. */
  private widths = new Map<uPlot, number>();

  private drawnPending = false;
  /** A re-layout to line the axes up is under way (see afterDraw). */
  private aligning = false;

  /**
   * `select(window)`: a drag picked a time window; `reset()`: a double-click.
   * Both leave redrawing to the owner. `drawn()`: the panels were drawn (their
   * axes laid out; uPlot draws after the call that changed them).
   */
  constructor(
    private readonly box: HTMLElement,
    private readonly select: (window: Window) => void,
    private readonly reset: () => void,
    private readonly drawn: () => void,
  ) {}

  get panels(): number {
    return this.plots.length;
  }

  destroy(): void {
    for (const u of this.plots) u.destroy();
    this.plots = [];
    this.widths.clear();
    this.layout = '';
    this.box.replaceChildren();
  }

  resize(): void {
    const width = this.width();
    for (const u of this.plots) u.setSize({ width, height: u.height });
  }

  /**
   * Draw `series` grouped by scale; `window` limits the time axis. Redraws the
   * panels in place when the grouping is unchanged (a stream growing, a zoom).
   */
  show(series: PanelSeries[], window: Window | undefined): void {
    const extents = series.map((s) => extentOf(s.ys));
    const groups = groupByScale(extents);
    const layout = JSON.stringify(groups.map((g) => g.map((i) => [series[i].key, series[i].label, series[i].dots])));
    const data = groups.map((g) => aligned(g.map((i) => series[i])));
    if (layout !== this.layout) {
      this.destroy();
      this.layout = layout;
      const height = groups.length === 1 ? SINGLE_HEIGHT : Math.max(MIN_HEIGHT, Math.round(STACK_HEIGHT / groups.length));
      this.plots = groups.map((g, k) => {
        // A range wider than float64 spans (values near ±1.8e308) has no ticks: such a panel draws the middle half of it.
        const overflows = g.some((i) => extents[i] && !Number.isFinite(extents[i]!.max - extents[i]!.min));
        return new uPlot(this.options(g.map((i) => series[i]), height, overflows), data[k], this.box);
      });
    } else {
      this.plots.forEach((u, k) => u.setData(data[k], window === undefined));
    }
    // One time axis: every panel shows the window, or the time range of all the series.
    const x = window ?? timeRange(series);
    if (x) for (const u of this.plots) u.setScale('x', { min: x.from, max: x.to });
  }

  /** Each panel's legend and value axis. */
  report(): PanelReport[] {
    return this.plots.map((u) => {
      const axis = u.axes[1] as uPlot.Axis & { _pos: number; _size: number; _values: (string | null)[] | null };
      const right = axis._pos - TICK_SIZE - TICK_GAP;
      const labels = (axis._values ?? []).filter((t): t is string => t != null).map((text) => ({ text: String(text), left: right - textWidth(String(text)) }));
      return { legend: u.series.slice(1).map((s) => String(s.label)), axisWidth: axis._size, labels };
    });
  }

  private width(): number {
    return Math.max(320, this.box.clientWidth);
  }

  /**
   * After the panels drew: lay out again any whose axis is narrower than the
   * widest (its size function then answers the widest), so the plots line up;
   * then tell the owner, once for all the panels of one draw.
   */
  private afterDraw(): void {
    if (this.drawnPending) return;
    this.drawnPending = true;
    queueMicrotask(() => {
      this.drawnPending = false;
      const widest = Math.max(0, ...this.widths.values());
      const narrow = this.plots.filter((u) => ((u.axes[1] as { _size?: number })._size ?? widest) < widest);
      // One pass of re-layout a draw: an axis uPlot sizes otherwise (no values) must not loop.
      if (narrow.length && !this.aligning) {
        this.aligning = true;
        for (const u of narrow) u.setSize({ width: u.width, height: u.height });
        return;
      }
      this.aligning = false;
      this.drawn();
    });
  }

  private options(series: PanelSeries[], height: number, overflows: boolean): uPlot.Options {
    return {
      width: this.width(),
      height,
      ms: 1, // x values are epoch milliseconds
      cursor: {
        sync: { key: this.sync },
        drag: { x: true, y: false, setScale: false },
        bind: {
          dblclick: () => () => {
            this.reset();
            return null;
          },
        },
      },
      scales: { x: { time: true }, ...(overflows ? { y: { range: (_u: uPlot, min: number, max: number): uPlot.Range.MinMax => [min / 2, max / 2] } } : {}) },
      axes: [
        { font: AXIS_FONT },
        {
          font: AXIS_FONT,
          space: TICK_SPACE,
          incrs: Y_STEPS,
          values: (_u, ticks, _axis, _space, step) => tickLabels(ticks, step),
          // The widest label decides the width; the widest of all panels, once known, lines them up.
          size: (u, labels) => {
            const own = axisWidth(labels ?? []);
            this.widths.set(u, own);
            return Math.max(own, ...this.widths.values());
          },
        },
      ],
      series: [
        { label: 'time', value: (_u, v) => (v == null ? '-' : timeText(v)) },
        ...series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 1.5,
          spanGaps: true,
          value: (_u: uPlot, v: number | null) => valueText(v),
          points: { show: s.dots },
        })),
      ],
      hooks: {
        draw: [() => this.afterDraw()],
        setSelect: [
          (u) => {
            if (u.select.width < 2) return;
            const window = { from: u.posToVal(u.select.left, 'x'), to: u.posToVal(u.select.left + u.select.width, 'x') };
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            this.select(window);
          },
        ],
      },
    };
  }
}

/** The first and last time over all the series, or undefined when they have no point. */
function timeRange(series: PanelSeries[]): Window | undefined {
  let from = Infinity;
  let to = -Infinity;
  for (const s of series) {
    if (s.xs.length === 0) continue;
    from = Math.min(from, s.xs[0]);
    to = Math.max(to, s.xs[s.xs.length - 1]);
  }
  return from < to ? { from, to } : undefined;
}

/** uPlot wants one x column per panel: the panel's series joined on the union of their timestamps. */
function aligned(series: PanelSeries[]): uPlot.AlignedData {
  const tables = series.map((s) => [s.xs, s.ys] as uPlot.AlignedData);
  return tables.length === 1 ? tables[0] : uPlot.join(tables);
}
