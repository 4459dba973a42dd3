// Grouped horizontal bars on a canvas: one group per category (a bench
// configuration), one bar per series, on a log or linear axis, with optional
// vertical reference lines. uPlot charts time series; for a few hundred
// categorical bars this small painter reads better (labels on the left, a
// log axis) than bending uPlot's bar paths to it.

export interface BarSeries {
  label: string;
  color: string;
  /** One value per category; undefined draws no bar. */
  values: (number | undefined)[];
}

export interface BarLine {
  label: string;
  value: number;
  color: string;
}

export interface BarChartSpec {
  categories: string[];
  series: BarSeries[];
  scale: 'log' | 'linear';
  /** Axis title, e.g. "Mpoints/s (log scale)". */
  axis: string;
  format: (value: number) => string;
  lines?: BarLine[];
  /** Bar thickness in CSS pixels. */
  bar?: number;
}

/** What is under the pointer. */
export interface BarHit {
  category: string;
  series: BarSeries;
  value: number;
}

const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const INK = '#1d2430';
const MUTED = '#667085';
const GRID = '#e3e6eb';
const AXIS_HEIGHT = 34;
const GROUP_GAP = 8;

/** Ticks for a log axis between `lo` and `hi` (powers of ten, with 2 and 5 when few decades). */
function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  const decades = Math.log10(hi / lo);
  const steps = decades <= 2 ? [1, 2, 5] : [1];
  for (let p = Math.floor(Math.log10(lo)); p <= Math.ceil(Math.log10(hi)); p++) {
    for (const s of steps) {
      const v = s * 10 ** p;
      if (v >= lo * 0.999 && v <= hi * 1.001) ticks.push(v);
    }
  }
  return ticks;
}

/** Ticks for a linear axis from 0 to `hi`: about five round steps. */
function linearTicks(hi: number): number[] {
  const raw = hi / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks = [0];
  while (ticks[ticks.length - 1] < hi) ticks.push(ticks.length * step);
  return ticks;
}

/**
 * Paint `spec` on `canvas` at `width` CSS pixels (height follows from the
 * number of categories and series). Returns a hit test for pointer positions.
 */
export function drawBarChart(canvas: HTMLCanvasElement, spec: BarChartSpec, width: number): (x: number, y: number) => BarHit | undefined {
  const bar = spec.bar ?? 5;
  const shown = spec.series.filter((s) => s.values.some((v) => v !== undefined && v > 0));
  const groupHeight = Math.max(1, shown.length) * bar + GROUP_GAP;
  const height = AXIS_HEIGHT + spec.categories.length * groupHeight + 8;
  const ratio = globalThis.devicePixelRatio || 1;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const ctx = canvas.getContext('2d');
  if (!ctx) return () => undefined;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.font = FONT;

  const labelWidth = Math.ceil(Math.max(60, ...spec.categories.map((c) => ctx.measureText(c).width))) + 12;
  const left = labelWidth;
  const right = width - 32; // room for the last tick's label
  const values = [...shown.flatMap((s) => s.values), ...(spec.lines ?? []).map((l) => l.value)].filter(
    (v): v is number => v !== undefined && Number.isFinite(v) && v > 0,
  );
  const max = values.length ? Math.max(...values) : 1;
  const min = values.length ? Math.min(...values) : 1;
  let toX: (v: number) => number;
  let ticks: number[];
  if (spec.scale === 'log') {
    const lo = 10 ** Math.floor(Math.log10(min));
    const hi = 10 ** Math.ceil(Math.log10(max));
    const span = Math.log10(hi / lo) || 1;
    toX = (v) => left + ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / span) * (right - left);
    ticks = logTicks(lo, hi);
  } else {
    ticks = linearTicks(max);
    const hi = ticks[ticks.length - 1] || 1;
    toX = (v) => left + (v / hi) * (right - left);
  }

  // Axis on top: grid lines, tick labels, title.
  ctx.textBaseline = 'alphabetic';
  ctx.textAlign = 'center';
  for (const t of ticks) {
    const x = Math.round(toX(t)) + 0.5;
    ctx.strokeStyle = GRID;
    ctx.beginPath();
    ctx.moveTo(x, AXIS_HEIGHT - 4);
    ctx.lineTo(x, height - 8);
    ctx.stroke();
    ctx.fillStyle = MUTED;
    ctx.fillText(spec.format(t), x, AXIS_HEIGHT - 8);
  }
  ctx.textAlign = 'left';
  ctx.fillStyle = MUTED;
  ctx.fillText(spec.axis, 4, 14);

  // Groups: label, then one bar per series.
  const bars: { x0: number; x1: number; y0: number; y1: number; hit: BarHit }[] = [];
  spec.categories.forEach((category, i) => {
    const top = AXIS_HEIGHT + i * groupHeight + GROUP_GAP / 2;
    ctx.fillStyle = INK;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    ctx.fillText(category, left - 8, top + (shown.length * bar) / 2);
    shown.forEach((series, j) => {
      const value = series.values[i];
      if (value === undefined || !(value > 0)) return;
      const y = top + j * bar;
      const x1 = Math.max(left + 1, toX(value));
      ctx.fillStyle = series.color;
      ctx.fillRect(left, y, x1 - left, bar - 1);
      bars.push({ x0: left, x1, y0: y, y1: y + bar, hit: { category, series, value } });
    });
  });

  // Reference lines across every group.
  for (const line of spec.lines ?? []) {
    const x = Math.round(toX(line.value)) + 0.5;
    ctx.strokeStyle = line.color;
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    ctx.moveTo(x, AXIS_HEIGHT);
    ctx.lineTo(x, height - 8);
    ctx.stroke();
    ctx.setLineDash([]);
  }

  return (x, y) => bars.find((b) => y >= b.y0 && y < b.y1 && x >= b.x0 - 2 && x <= Math.max(b.x1, b.x0 + 40))?.hit;
}

/** A legend: a swatch and a label per series (and per reference line, dashed). */
export function legend(series: { label: string; color: string; dashed?: boolean }[]): HTMLElement {
  const box = document.createElement('div');
  box.className = 'legend';
  for (const s of series) {
    const item = document.createElement('span');
    const swatch = document.createElement('i');
    swatch.style.background = s.dashed ? 'transparent' : s.color;
    if (s.dashed) swatch.style.borderLeft = `2px dashed ${s.color}`;
    item.append(swatch, s.label);
    box.append(item);
  }
  return box;
}
