// The list of the open blob's metrics, filterable, and which are selected:
// numeric blobs chart several at once (a colour each), text blobs list one.

import { MAX_SERIES, PALETTE } from './chart-view.js';
import { $, el, integer } from './dom.js';
import { metricLabel, type Opened } from './view.js';

/** Metrics selected when a blob opens. */
const DEFAULT_SELECTION = 4;

export class MetricList {
  selected: bigint[] = [];
  private blob: Opened | undefined;

  /** `changed` runs after the selection changes. */
  constructor(private readonly changed: () => void) {
    $('metric-filter').addEventListener('input', () => this.render());
    $('select-none').addEventListener('click', () => {
      this.selected = [];
      this.render();
      this.changed();
    });
  }

  /** A new blob: its first metrics selected. */
  open(blob: Opened): void {
    this.blob = blob;
    this.selected = blob.metrics.slice(0, blob.kind === 'text' ? 1 : DEFAULT_SELECTION).map((m) => m.id);
    this.render();
  }

  private toggle(id: bigint): void {
    const at = this.selected.indexOf(id);
    if (at >= 0) this.selected.splice(at, 1);
    else if (this.blob?.kind === 'text') this.selected = [id];
    else this.selected.push(id);
    this.render();
    this.changed();
  }

  render(): void {
    const blob = this.blob;
    if (!blob) return;
    const filter = $<HTMLInputElement>('metric-filter').value.trim().toLowerCase();
    const rows = blob.metrics.filter((m) => !filter || metricLabel(m).toLowerCase().includes(filter) || m.hex.includes(filter));
    const named = blob.metrics.filter((m) => m.name !== undefined).length;
    $('metric-summary').textContent = `${integer.format(blob.metrics.length)} · ${this.selected.length} selected${named < blob.metrics.length ? ` · ${named ? 'some' : 'no'} names` : ''}`;
    $<HTMLTableElement>('metrics').tBodies[0].replaceChildren(
      ...rows.map((m) => {
        const at = this.selected.indexOf(m.id);
        const swatch = el('span', { className: 'swatch' });
        swatch.style.background = at >= 0 && at < MAX_SERIES ? PALETTE[at] : 'transparent';
        const label = el('td', {}, m.name ?? '', m.name ? el('br') : '', el('span', { className: 'id', textContent: `0x${m.hex}` }));
        const row = el('tr', { className: at >= 0 ? 'selected' : '' }, el('td', {}, swatch), label, el('td', { className: 'num', textContent: integer.format(m.points) }));
        row.addEventListener('click', () => this.toggle(m.id));
        return row;
      }),
    );
  }
}
