// The benchmark panel: the bench blobs decoded natively, in Node, by the
// reference and in this browser, in one run (bench/runner.ts), charted and
// tabled beside the reference's recorded and documented figures
// (bench/views.ts), every figure kept in one place (bench/figures.ts).
// Without the local API (any static host) native and Node come from the
// bench-results.json the page was built with, when there is one, and say so.
//
// `?bench=quick` or `?bench=full` starts a run on load; progress and rows are
// published as globalThis.meboDemo.bench = { done, rows, ... }.

import { $, el, fetchJson } from '../dom.js';
import { Figures, type BenchState, type BrowserInfo, type Plan } from './figures.js';
import type { ApiInfo, BenchManifest, BenchResults, GoReference, SeedReference } from './rows.js';
import { runPasses } from './runner.js';
import { ThroughputChart, renderColdStart, renderEncode, renderHeadline, renderSizes, renderSources, renderTable } from './views.js';

export type { BenchState };

/** The browser and its version, as far as the user agent says. */
function browserName(): string {
  const ua = navigator.userAgent;
  const match = ua.match(/(Edg|OPR|Firefox|Chrome|Chromium)\/([\d.]+)/) ?? ua.match(/Version\/([\d.]+).*(Safari)/);
  if (!match) return ua;
  return match[2] === 'Safari' ? `Safari ${match[1]}` : `${match[1] === 'Edg' ? 'Edge' : match[1]} ${match[2]}`;
}

/** The smallest step performance.now() takes here, in µs (5 µs when cross-origin isolated in Chromium, 100 µs otherwise). */
function timerResolutionUs(): number {
  let smallest = Infinity;
  let last = performance.now();
  for (let i = 0; i < 200_000 && smallest > 0.0005; i++) {
    const now = performance.now();
    if (now > last) {
      smallest = Math.min(smallest, now - last);
      last = now;
    }
  }
  return smallest * 1e3;
}

export async function setupBench(): Promise<void> {
  const demo = (globalThis as unknown as { meboDemo: { bench?: BenchState } }).meboDemo;
  const [manifest, fileResults, go, seed, api] = await Promise.all([
    fetchJson<BenchManifest>('bench/manifest.json'),
    fetchJson<BenchResults>('bench-results.json'),
    fetchJson<GoReference>('reference/go-v1.9-epyc.json'),
    fetchJson<SeedReference>('reference/seed-x86.json'),
    fetchJson<ApiInfo>('api/bench'),
  ]);
  const runButton = $<HTMLButtonElement>('bench-run');
  const cancelButton = $<HTMLButtonElement>('bench-cancel');
  const downloadButton = $<HTMLButtonElement>('bench-download');
  const planSelect = $<HTMLSelectElement>('bench-plan');
  if (!manifest) {
    $('bench-status').textContent = 'no bench blobs in this build';
    runButton.disabled = true;
    return;
  }
  const figures = new Figures({ manifest, fileResults, go, seed, api });
  const { state } = figures;
  demo.bench = state;
  const browser: BrowserInfo = { name: browserName(), cores: navigator.hardwareConcurrency, isolated: globalThis.crossOriginIsolated === true, timerUs: timerResolutionUs() };
  const chart = new ThroughputChart(figures);

  let pending = 0;
  function render(): void {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => {
      renderSources(figures, browser);
      chart.render();
      renderTable(figures);
      renderEncode(figures);
      renderHeadline(figures);
      renderColdStart(figures);
    });
  }
  render();
  renderSizes(figures);
  window.addEventListener('resize', () => {
    render();
    renderSizes(figures);
  });

  let controller: AbortController | undefined;

  async function run(plan: Plan): Promise<void> {
    controller = new AbortController();
    const { signal } = controller;
    Object.assign(state, { done: false, running: true, plan, rows: [], error: undefined, cancelled: false });
    runButton.disabled = true;
    cancelButton.disabled = false;
    downloadButton.disabled = true;
    $('bench-status').textContent = `${plan} run…`;
    try {
      await runPasses(figures, plan, signal, render);
      state.done = true;
      $('bench-status').textContent = `done: ${state.rows.length} figures (${plan} run)`;
    } catch (error) {
      if (signal.aborted) {
        state.cancelled = true;
        $('bench-status').textContent = 'cancelled';
      } else {
        state.error = error instanceof Error ? error.message : String(error);
        $('bench-status').textContent = `failed: ${state.error}`;
      }
    } finally {
      if (!state.done) controller.abort(); // a failed run: stop whatever is still streaming
      state.running = false;
      runButton.disabled = false;
      cancelButton.disabled = true;
      downloadButton.disabled = state.rows.length === 0;
      render();
    }
  }

  runButton.addEventListener('click', () => void run(planSelect.value === 'full' ? 'full' : 'quick'));
  cancelButton.addEventListener('click', () => controller?.abort());
  downloadButton.addEventListener('click', () => {
    const machine = {
      browser: browser.name,
      user_agent: navigator.userAgent,
      cores: browser.cores,
      cross_origin_isolated: browser.isolated,
      timer_resolution_us: browser.timerUs,
      host: api?.machine,
      date: new Date().toISOString(),
      plan: state.plan,
      sources: state.sources,
    };
    const blob = new Blob([`${JSON.stringify({ machine, results: state.rows }, null, 1)}\n`], { type: 'application/json' });
    const link = el('a', { href: URL.createObjectURL(blob), download: `mebo-bench-${browser.name.split(' ')[0].toLowerCase()}-${machine.date.slice(0, 10)}.json` });
    link.click();
    URL.revokeObjectURL(link.href);
  });

  const asked = new URLSearchParams(location.search).get('bench');
  if (asked === 'quick' || asked === 'full') {
    planSelect.value = asked;
    void run(asked);
  }
}
