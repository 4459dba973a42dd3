// Value axes that never cut their labels: ticks in compact SI form (9.0M,
// 250k, 1019.5, 0.25, 2.5e-6), and each axis as wide as its widest label measured in
// the axis font, so a label never runs past the canvas' left edge.

/** The font of every axis' values: measured and drawn with the same string. */
export const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
/** uPlot's tick length and the gap between tick and label (its defaults), and room either side of the text. */
export const TICK_SIZE = 10;
export const TICK_GAP = 5;
const PAD = 4;

const PREFIXES = ['', 'k', 'M', 'G', 'T', 'P', 'E'];

/** Fewest decimals (at most 6) that write `step` exactly enough to tell ticks `step` apart. */
function decimalsFor(step: number): number {
  for (let d = 0; d < 6; d++) {
    const scaled = step * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, Math.abs(scaled))) return d;
  }
  return 6;
}

/**
 * Tick labels for `ticks` (spaced `step` apart): one SI prefix for the axis,
 * chosen by the largest tick, and the decimals that step needs; below 0.001,
 * exponent notation.
 */
export function tickLabels(ticks: number[], step: number): string[] {
  // A tick a rounding error off zero (the sum of many steps) is zero.
  ticks = ticks.map((v) => (Math.abs(v) < Math.abs(step) * 1e-6 ? 0 : v));
  const largest = ticks.reduce((m, v) => (Number.isFinite(v) ? Math.max(m, Math.abs(v)) : m), 0);
  if (largest === 0) return ticks.map((v) => (v === 0 ? '0' : String(v)));
  if (largest < 1e-3 || largest >= 1e21) {
    const digits = Math.min(6, Math.max(0, Math.floor(Math.log10(largest)) - Math.floor(Math.log10(step))));
    return ticks.map((v) => (v === 0 ? '0' : v.toExponential(digits)));
  }
  // Up to 9999 plain figures read best (1019.5 hPa, not 1.0195k); from 10^4 on, an SI prefix.
  const power = largest < 1e4 ? 0 : Math.min(PREFIXES.length - 1, Math.floor(Math.log10(largest) / 3));
  const unit = 10 ** (3 * power);
  const decimals = decimalsFor(step / unit);
  return ticks.map((v) => {
    if (v === 0) return '0';
    const text = (v / unit).toFixed(decimals);
    // A tick a rounding error off zero would read -0.0: a sign error on an axis.
    return /^-?0(\.0*)?$/.test(text) ? '0' : `${text}${PREFIXES[power]}`;
  });
}

/** A value as the legend shows it: compact SI from 10^4 on, 6 significant digits. */
export function valueText(v: number | null | undefined): string {
  if (v == null || Number.isNaN(v)) return '–';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  const abs = Math.abs(v);
  if (abs >= 1e4 && abs < 1e21) {
    const power = Math.min(PREFIXES.length - 1, Math.floor(Math.log10(abs) / 3));
    return `${(v / 10 ** (3 * power)).toPrecision(6).replace(/\.?0+$/, '')}${PREFIXES[power]}`;
  }
  if (abs !== 0 && (abs < 1e-3 || abs >= 1e21)) return v.toExponential(3);
  return String(Number(v.toPrecision(6)));
}

let measurer: CanvasRenderingContext2D | null | undefined;

/** The width in CSS pixels of `text` in the axis font. */
export function textWidth(text: string): number {
  measurer ??= document.createElement('canvas').getContext('2d');
  if (!measurer) return text.length * 8;
  measurer.font = AXIS_FONT;
  return measurer.measureText(text).width;
}

/** The width a left or right value axis needs for `labels`: the widest label, the tick and its gap. */
export function axisWidth(labels: readonly (string | null)[]): number {
  const widest = labels.reduce((m, l) => (l ? Math.max(m, textWidth(l)) : m), 0);
  return Math.ceil(widest) + TICK_SIZE + TICK_GAP + PAD;
}
