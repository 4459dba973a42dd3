// Runs the bench page in headless Debian Chromium: bundles runners/bench-page.mjs with esbuild into a temp
// dir beside copies of the bench blobs and the wasm builds, serves it from
// 127.0.0.1 and collects the rows. Node only.

import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BENCH_DIR, ROOT, decimateCases, manifest } from 'mebo-tooling/data';
import { launchChromium } from 'mebo-tooling/chromium';
import { startServer } from 'mebo-tooling/serve';

const HTML = `<!doctype html>
<meta charset="utf-8">
<title>mebo bench</title>
<script type="module" src="runner.js"></script>
<body>mebo bench page</body>
`;

/** esbuild options of a bench page's script: one ESM bundle for the browser. */
export const PAGE_BUNDLE = { bundle: true, format: 'esm', platform: 'browser', target: 'es2022', logLevel: 'warning' };

/** The wasm builds copied into `dir`/`folder` (a page's SDK fetches ../wasm/ from its bundle): both full builds, or every module the package ships. */
export function copyWasm(dir, folder = 'wasm', every = false) {
  mkdirSync(join(dir, folder), { recursive: true });
  const files = every ? readdirSync(join(ROOT, 'packages/mebo/wasm')).filter((f) => f.endsWith('.wasm')) : ['mebo_simd.wasm', 'mebo_scalar.wasm'];
  for (const file of files) copyFileSync(join(ROOT, 'packages/mebo/wasm', file), join(dir, folder, file));
}

/** Build the page into a fresh temp dir; returns the dir. */
async function buildPage() {
  const dir = mkdtempSync(join(tmpdir(), 'mebo-bench-page-'));
  await build({ ...PAGE_BUNDLE, entryPoints: [fileURLToPath(new URL('../runners/bench-page.mjs', import.meta.url))], outfile: join(dir, 'runner.js') });
  writeFileSync(join(dir, 'index.html'), HTML);
  copyWasm(dir);
  copyWasm(dir, 'pkg/wasm', true);
  // The package's dist/ as it ships, for the worker pool (mebo/worker) and its workers, and mebo/decode's light core.
  cpSync(join(ROOT, 'packages/mebo/dist'), join(dir, 'pkg/dist'), { recursive: true });
  const cases = manifest();
  // The blobs, and the inputs the page encodes them from.
  for (const file of new Set(cases.flatMap((c) => [c.file, c.options.input]))) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(BENCH_DIR, file), join(dir, file));
  }
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ cases }));
  const decimate = decimateCases().map(({ config, file }) => {
    copyFileSync(file, join(dir, `decimate-${config}.mebo`));
    return { config, file: `decimate-${config}.mebo` };
  });
  writeFileSync(join(dir, 'decimate.json'), JSON.stringify(decimate));
  return dir;
}

/**
 * Time decode of every bench blob in Chromium, and the encode of each from its input, once per wasm build in
 * `variants` (each in a fresh page); with `breakdown`, also where the simd
 * build's decode time goes. Returns `{ rows, breakdown, version, crossOriginIsolated }`.
 */
export async function runChromium({ quick = false, variants = ['simd', 'scalar', 'core'], breakdown = false, log = () => {} } = {}) {
  const dir = await buildPage();
  const server = await startServer({ root: dir });
  let browser;
  try {
    browser = await launchChromium();
    const rows = [];
    const parts = [];
    let isolated = true;
    for (const variant of variants) {
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (error) => errors.push(error));
      await page.goto(`${server.url}index.html`);
      await page.waitForFunction(() => globalThis.benchReady === true);
      log(`  chromium ${browser.version()} (${variant}): running`);
      const result = await page.evaluate((options) => globalThis.runBench(options), { variant, quick, breakdown: breakdown && variant === 'simd' });
      if (errors.length) throw errors[0];
      isolated &&= result.crossOriginIsolated;
      for (const row of result.rows) {
        log(`  ${row.runtime.padEnd(17)} ${row.op.padEnd(6)} ${row.config.padEnd(38)} ${(row.median_ns / 1e3).toFixed(1).padStart(9)} µs`);
      }
      rows.push(...result.rows);
      parts.push(...result.breakdown);
      await page.close();
    }
    return { rows, breakdown: parts, version: browser.version(), crossOriginIsolated: isolated };
  } finally {
    await browser?.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
