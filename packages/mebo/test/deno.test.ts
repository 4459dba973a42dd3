// The SDK in Deno: the `deno` npm package's binary runs a script that imports
// dist/index.js, lets init() load the wasm the Deno way, and decodes the
// host sample; the results must equal the vectors' inputs.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { expectSampleDecoded, sampleCases } from './helpers/hosts.js';
import { PACKAGE_ROOT, VECTORS } from './helpers/vectors.js';

/** The deno executable of the `deno` npm package (its platform package ships the binary). */
function denoExecutable(): string {
  const api = createRequire(import.meta.url)('deno/install_api.cjs') as { runInstall(): string };
  return api.runInstall();
}

// A private DENO_DIR: no cache or state shared with anything else, removed after.
const denoDir = mkdtempSync(join(tmpdir(), 'mebo-deno-'));
afterAll(() => rmSync(denoDir, { recursive: true, force: true }));

function runDeno(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      denoExecutable(),
      args,
      {
        cwd: denoDir,
        timeout: 60_000,
        maxBuffer: 256 << 20,
        env: { PATH: process.env.PATH ?? '', HOME: denoDir, DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
      },
      (error, stdout, stderr) => (error ? reject(new Error(`deno failed: ${error.message}\n${stderr}`)) : resolve({ stdout, stderr })),
    );
  });
}

it('decodes the host sample in Deno, loading the wasm through the SDK', async () => {
  const script = join(PACKAGE_ROOT, 'test/hosts/deno-decode.js');
  const files = sampleCases().map((c) => `${c.name}=${join(VECTORS, c.file)}`);
  const { stdout } = await runDeno([
    'run',
    '--no-config',
    '--no-lock',
    '--no-npm',
    '--no-remote',
    '--no-prompt',
    `--allow-read=${PACKAGE_ROOT},${VECTORS}`,
    script,
    ...files,
  ]);
  const out = JSON.parse(stdout) as { deno: string; variant: string; simd: boolean; results: Record<string, never> };
  expect(out.deno).toMatch(/^2\./);
  // Deno's V8 has simd128: init() picks the simd build.
  expect(out.simd).toBe(true);
  expect(out.variant).toBe('simd');
  expectSampleDecoded(out.results);
});

it('init() in Deno without read permission fails as WASM_LOAD, not a crash', async () => {
  const script = join(denoDir, 'no-read.js');
  writeFileSync(
    script,
    `import * as mebo from ${JSON.stringify(pathToFileURL(join(PACKAGE_ROOT, 'dist/index.js')).href)};
try { await mebo.init(); console.log('loaded'); } catch (e) { console.log(e.name, e.code); }`,
  );
  const { stdout } = await runDeno(['run', '--no-config', '--no-lock', '--no-npm', '--no-remote', '--no-prompt', script]);
  expect(stdout.trim()).toBe('MeboError WASM_LOAD');
});
