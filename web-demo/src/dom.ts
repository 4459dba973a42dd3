// The page's one DOM helper and its number and time formats, shared by every
// component of the dashboard.

/** The element with this id; a missing one is a bug in index.html. */
export function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
}

/** A new element with properties and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

/** A definition list's terms and descriptions. */
export function definitions(entries: [string, string][]): HTMLElement[] {
  return entries.flatMap(([k, v]) => [el('dt', { textContent: k }), el('dd', { textContent: v })]);
}

export const integer = new Intl.NumberFormat('en-US');

export function fixed(v: number, digits = 1): string {
  return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

/** Epoch milliseconds (fractional) as ISO 8601 with microseconds; out of Date's range: the raw figure. */
export function timeText(ms: number): string {
  const whole = Math.floor(ms);
  const date = new Date(whole);
  if (!Number.isFinite(date.getTime())) return `${ms * 1000} µs`;
  const micros = Math.round((ms - whole) * 1000);
  return date.toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`);
}

/** A JSON file beside the page, or undefined when it is missing or not JSON. */
export async function fetchJson<T>(path: string): Promise<T | undefined> {
  try {
    const response = await fetch(path, { cache: 'no-store' });
    if (!response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return undefined;
    return ((await response.json()) as T | null) ?? undefined;
  } catch {
    return undefined;
  }
}
