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
import { expectSampleDecoded, sampleBlobs, sampleCases } from './helpers/hosts.js';
import { framed } from './helpers/stream.js';
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

it('mebo/worker in Deno: a pool of Web Workers decodes as the main thread does', async () => {
  const [numeric, text] = [sampleCases().find((c) => c.kind === 'numeric')!, sampleCases().find((c) => c.kind === 'text')!];
  const script = join(denoDir, 'pool.js');
  const dist = (file: string) => JSON.stringify(pathToFileURL(join(PACKAGE_ROOT, 'dist', file)).href);
  writeFileSync(
    script,
    `import * as mebo from ${dist('index.js')};
import { DecodePool } from ${dist('worker/pool.js')};
await mebo.init();
const pool = await DecodePool.create({ size: 2 });
const same = {};
for (const file of ${JSON.stringify([join(VECTORS, numeric.file), join(VECTORS, text.file)])}) {
  const bytes = await Deno.readFile(file);
  const blob = mebo.blobKind(bytes) === 'text' ? mebo.TextBlob.from(bytes) : mebo.NumericBlob.from(bytes);
  const want = blob.decodeAll();
  blob.free();
  const got = await pool.decodeAll(bytes);
  const flat = (c) => JSON.stringify([c.ids, c.offsets, c.timestamps].map((a) => Array.from(a, String)).concat([Array.isArray(c.values) ? c.values : Array.from(new BigUint64Array(c.values.buffer, c.values.byteOffset, c.values.length), String)]));
  same[file] = flat(got) === flat(want);
}
let refused;
try { await pool.decodeAll(new Uint8Array(8)); } catch (e) { refused = e.code; }
pool.terminate();
console.log(JSON.stringify({ size: pool.size, same, refused }));`,
  );
  const { stdout } = await runDeno(['run', '--no-config', '--no-lock', '--no-npm', '--no-remote', '--no-prompt', `--allow-read=${PACKAGE_ROOT},${VECTORS}`, script]);
  const out = JSON.parse(stdout) as { size: number; same: Record<string, boolean>; refused: string };
  expect(out.size).toBe(2);
  expect(Object.values(out.same)).toEqual([true, true]);
  expect(out.refused).toBe('TRUNCATED');
});

it('streams of blobs in Deno: frameBlobs into a Response, decodeStream of it and of a file', async () => {
  const sample = sampleBlobs();
  const streamFile = join(denoDir, 'sample.mbs');
  writeFileSync(streamFile, framed(sample.map((s) => s.bytes)));
  const script = join(denoDir, 'stream.js');
  const dist = (file: string) => JSON.stringify(pathToFileURL(join(PACKAGE_ROOT, 'dist', file)).href);
  writeFileSync(
    script,
    `import * as mebo from ${dist('index.js')};
import { decodeStreamSample } from ${JSON.stringify(pathToFileURL(join(PACKAGE_ROOT, 'test/hosts/decode-document.js')).href)};
await mebo.init();
const [file, ...names] = Deno.args;
// Blobs out of a stream read from a file, framed again by frameBlobs into a Response, and decoded from it.
const split = [];
for await (const bytes of mebo.splitStream((await Deno.open(file)).readable)) split.push(bytes.slice());
const viaResponse = await decodeStreamSample(mebo, new Response(mebo.frameBlobs(split)), names);
const viaFile = await decodeStreamSample(mebo, (await Deno.open(file)).readable, names);
console.log(JSON.stringify({ viaResponse, viaFile }));`,
  );
  const { stdout } = await runDeno(['run', '--no-config', '--no-lock', '--no-npm', '--no-remote', '--no-prompt', `--allow-read=${PACKAGE_ROOT},${denoDir}`, script, streamFile, ...sample.map((s) => s.name)]);
  const out = JSON.parse(stdout) as Record<'viaResponse' | 'viaFile', { results: Record<string, never>; streamError?: unknown }>;
  for (const via of [out.viaResponse, out.viaFile]) {
    expect(via.streamError).toBeUndefined();
    expectSampleDecoded(via.results);
  }
});
