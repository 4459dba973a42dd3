// Which series share a value axis. Metrics of very different magnitudes on
// one axis leave the small ones flat at zero, so each group of series whose
// ranges are alike gets a panel of its own: a series joins a group only when
// every member would still span at least 1/SHARE of the group's axis.

/** The finite minimum and maximum of a series, or undefined when it has no finite value. */
export interface Extent {
  min: number;
  max: number;
}

/** Each member of a group spans at least 1/SHARE of the group's combined range. */
export const SHARE = 8;

/** The finite extent of `values`, or undefined. */
export function extentOf(values: ArrayLike<number | null>): Extent | undefined {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v == null || !Number.isFinite(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return min <= max ? { min, max } : undefined;
}

/** Two extents' union. */
function union(a: Extent, b: Extent): Extent {
  return { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) };
}

/**
 * Series indices grouped by scale, each group in the series' order and the
 * groups ordered by their first series. Series are placed widest first; a
 * constant series (span 0) joins the first group whose (finite) range it does
 * not stretch by more than 1/SHARE; series without finite values join the first group.
 */
export function groupByScale(extents: readonly (Extent | undefined)[]): number[][] {
  const groups: { members: number[]; extent: Extent; narrowest: number }[] = [];
  const empty: number[] = [];
  const order = extents
    .map((e, i) => ({ e, i }))
    .filter((x): x is { e: Extent; i: number } => x.e !== undefined)
    .sort((a, b) => b.e.max - b.e.min - (a.e.max - a.e.min) || a.i - b.i);
  for (const { e, i } of order) {
    const span = e.max - e.min;
    const fits = groups.find((g) => {
      const u = union(g.extent, e);
      const combined = u.max - u.min;
      if (span === 0) return Number.isFinite(combined) && combined <= (g.extent.max - g.extent.min) * (1 + 1 / SHARE);
      return Math.min(g.narrowest, span) * SHARE >= combined;
    });
    if (fits) {
      fits.members.push(i);
      fits.extent = union(fits.extent, e);
      if (span > 0) fits.narrowest = Math.min(fits.narrowest, span);
    } else {
      groups.push({ members: [i], extent: e, narrowest: span > 0 ? span : Infinity });
    }
  }
  extents.forEach((e, i) => e === undefined && empty.push(i));
  if (groups.length === 0) return empty.length ? [empty] : [];
  groups[0].members.push(...empty);
  return groups.map((g) => g.members.sort((a, b) => a - b)).sort((a, b) => a[0] - b[0]);
}
