#!/usr/bin/env node
// The column kernels alone in Chromium: the wasm32-wasip1 build of
// crates/mebo-bench that bench/kernels-node.mjs runs under node:wasi, run in
// headless Chromium through bench/runners/kernels-page.mjs (a WASI of its own over the
// bench's test data). Same `--kernels-json` output: ns per point of each
// timestamp and value decoder, and each blob's open and decode without the
// bindings, so a Chromium row can be set against its own kernels, not Node's.
//
//   node bench/kernels-chromium.mjs [--quick] [--variant simd|scalar]...

import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { launchChromium } from 'mebo-tooling/chromium';
import { ROOT } from 'mebo-tooling/data';
import { startServer } from 'mebo-tooling/serve';
import { PAGE_BUNDLE } from './lib/chromium.mjs';
import { buildKernelsWasm } from './kernels-node.mjs';

/** What the binary reads, relative to the workspace: the bench set and the reference's figures. */
const DATA = ['testdata/bench', 'testdata/reference'];

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

/** `{ variant, points, timestamps, values, blobs, chromium }` per variant, as nodeKernels gives them. */
export async function chromiumKernels({ quick = false, variants = ['simd', 'scalar'], log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mebo-kernels-page-'));
  const server = await startServer({ root: dir });
  let browser;
  try {
    await build({ ...PAGE_BUNDLE, entryPoints: [fileURLToPath(new URL('./runners/kernels-page.mjs', import.meta.url))], outfile: join(dir, 'page.js') });
    writeFileSync(join(dir, 'index.html'), '<!doctype html>\n<meta charset="utf-8">\n<script type="module" src="page.js"></script>\n');
    for (const d of DATA) cpSync(join(ROOT, d), join(dir, d), { recursive: true });
    writeFileSync(join(dir, 'files.json'), JSON.stringify(DATA.flatMap((d) => files(join(ROOT, d)).map((f) => relative(ROOT, f)))));
    mkdirSync(join(dir, 'bin'));
    for (const variant of variants) cpSync(buildKernelsWasm(variant, log), join(dir, 'bin', `${variant}.wasm`));
    browser = await launchChromium();
    const out = [];
    for (const variant of variants) {
      const page = await browser.newPage();
      await page.goto(`${server.url}index.html`);
      await page.waitForFunction(() => globalThis.wasiReady === true);
      log(`  chromium ${browser.version()}: kernels of the ${variant} build`);
      const args = ['mebo-bench', '--kernels-json', ...(quick ? ['--quick'] : [])];
      const { text, crossOriginIsolated } = await page.evaluate((o) => globalThis.runWasi(o), { wasmUrl: `bin/${variant}.wasm`, listUrl: 'files.json', root: ROOT, args });
      await page.close();
      // Each sample lasts about 1 ms: a coarse clock (100 µs without isolation) would blur it.
      if (!crossOriginIsolated) throw new Error('the kernels page was not cross-origin isolated: its clock is too coarse to time them');
      out.push({ variant, chromium: browser.version(), ...JSON.parse(text.trim().split('\n').pop()) });
    }
    return out;
  } finally {
    await browser?.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false }, variant: { type: 'string', multiple: true } } });
  for (const k of await chromiumKernels({ quick: flags.quick, variants: flags.variant })) console.log(JSON.stringify(k));
}
