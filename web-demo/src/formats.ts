// The "formats" view: the open blob's points as the formats a dashboard
// author would ship instead (JSON, Arrow IPC, Parquet through parquet-wasm and
// hyparquet) and as mebo's `auto` configuration, sized and decoded in this
// browser. The peer libraries are in their own bundle (formats-run.ts, built
// apart by build.mjs), fetched only when the view runs, so the page's first
// load does not carry them.

import { $, el } from './dom.js';
import type { FormatRow } from './formats-run.js';

type FormatsRun = typeof import('./formats-run.js');

/** The formats bundle, by URL: esbuild leaves an import it cannot resolve at build time to the browser. */
function loadFormatsRun(): Promise<FormatsRun> {
  const url = new URL('formats-run.js', location.href).href;
  return import(/* webpackIgnore: true */ url) as Promise<FormatsRun>;
}

const cell = (text: string, numeric = false) => el('td', { textContent: text, className: numeric ? 'num' : '' });

const us = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));

/** Wire the view's button; `blob` is the open blob's bytes (undefined for a set of windows or a text blob). */
export function setupFormats(blob: () => { bytes: Uint8Array; label: string } | undefined): void {
  const button = $<HTMLButtonElement>('formats-run');
  const status = $('formats-status');
  const body = $<HTMLTableElement>('formats-table').tBodies[0]!;
  button.addEventListener('click', async () => {
    const open = blob();
    if (!open) {
      status.textContent = 'open one numeric blob first (a set of windows or a text blob has no single peer payload)';
      return;
    }
    button.disabled = true;
    body.replaceChildren();
    status.textContent = 'loading the peer libraries…';
    try {
      const { runFormats } = await loadFormatsRun();
      const rows: FormatRow[] = await runFormats(open.bytes, (line) => (status.textContent = line));
      const own = rows.find((r) => r.format === 'this blob')!;
      for (const r of rows) {
        const tr = el('tr');
        tr.append(
          cell(r.format),
          cell(r.config ?? ''),
          cell(String(r.bytes), true),
          cell(String(r.gzip), true),
          cell(us(r.decodeMedianUs), true),
          cell(us(r.decodeMinUs), true),
          cell(`${(r.decodeMedianUs / own.decodeMedianUs).toFixed(2)}×`, true),
          cell(r.encodeMedianUs === undefined ? '—' : us(r.encodeMedianUs), true),
        );
        body.append(tr);
      }
      status.textContent = `${open.label}: every decode checked bit for bit against the blob's points`;
    } catch (error) {
      console.error(error);
      status.textContent = `failed: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      button.disabled = false;
    }
  });
}
