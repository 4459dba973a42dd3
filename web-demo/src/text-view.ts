// The rows of a text metric: time, value and tag, the first TEXT_ROWS of them.

import { $, el, integer, timeText } from './dom.js';
import { metricLabel, type Opened } from './view.js';

/** Most rows the text view lists. */
const TEXT_ROWS = 500;

/** List the selected metrics' rows; returns how many metrics and rows are shown. */
export function renderText(view: Opened, selected: bigint[]): { series: number; points: number } {
  $('chart').hidden = true;
  $('text-view').hidden = false;
  $('view-title').textContent = `Rows — ${view.label}`;
  const byId = new Map(view.metrics.map((m) => [m.id, m]));
  const table = $<HTMLTableElement>('text-table');
  table.tHead!.replaceChildren(
    el('tr', {}, el('th', { textContent: '#' }), el('th', { textContent: 'time (UTC)' }), el('th', { textContent: 'value' }), ...(view.hasTags ? [el('th', { textContent: 'tag' })] : [])),
  );
  const rows: HTMLTableRowElement[] = [];
  let total = 0;
  for (const id of selected) {
    const { timestampsMs: ms, values, tags } = view.rows(id);
    total += values.length;
    for (let i = 0; i < values.length && rows.length < TEXT_ROWS; i++) {
      const value = values[i];
      rows.push(
        el(
          'tr',
          {},
          el('td', { className: 'num', textContent: String(i) }),
          el('td', { className: 'time', textContent: timeText(ms[i]) }),
          el('td', { className: 'value val', textContent: value === '' ? '∅ (empty)' : value }),
          ...(view.hasTags ? [el('td', { className: 'value', textContent: tags?.[i] ?? '' })] : []),
        ),
      );
    }
  }
  table.tBodies[0].replaceChildren(...rows);
  const metric = selected.length ? metricLabel(byId.get(selected[0])!) : undefined;
  $('view-note').textContent = metric
    ? `${metric}: ${integer.format(total)} rows${view.blobs > 1 ? ` over ${view.blobs} blobs` : ''}${total > rows.length ? `, the first ${rows.length} shown` : ''}. Text blobs hold strings; pick another metric in the list.`
    : 'Select a metric in the list to see its rows.';
  return { series: selected.length, points: rows.length };
}
