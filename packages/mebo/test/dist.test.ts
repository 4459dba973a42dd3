// The built package (dist/ + wasm/) as users get it, run by plain Node (no
// vite in between): every way of loading the module, and the bundle's shape.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, VECTORS } from './helpers/vectors.js';
import { browserBundle } from './helpers/bundle.js';

const DIST = pathToFileURL(join(PACKAGE_ROOT, 'dist/index.js')).href;
const BLOB = join(VECTORS, 'blobs/num-gauge1-delta-none-gorilla-none-notags-le-v1.mebo');

/** Run an ES module snippet in a fresh Node process with `mebo` (dist) imported; returns its stdout. */
function runNode(body: string, nodeFlags: string[] = []): string {
  const script = `import * as mebo from ${JSON.stringify(DIST)};
import { readFileSync } from 'node:fs';
const blobBytes = readFileSync(${JSON.stringify(BLOB)});
const decodeOne = () => { const b = mebo.NumericBlob.from(blobBytes); try { return b.length + ':' + b.totalPoints; } finally { b.free(); } };
${body}`;
  return execFileSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', script], { encoding: 'utf8' }).trim();
}

describe('loading in Node', () => {
  it('init() reads the simd build beside the package from disk', () => {
    expect(runNode(`await mebo.init(); console.log(mebo.wasmVariant(), decodeOne());`)).toBe('simd 12:720');
  });

  it('init({ variant: "scalar" }) forces the scalar build', () => {
    expect(runNode(`await mebo.init({ variant: 'scalar' }); console.log(mebo.wasmVariant(), decodeOne());`)).toBe(
      'scalar 12:720',
    );
  });

  it('init({ wasm }) takes a file URL, bytes, a Module or a Response', () => {
    const wasm = JSON.stringify(join(PACKAGE_ROOT, 'wasm/mebo_scalar.wasm'));
    const sources = [
      `new URL('file://' + ${wasm})`,
      `readFileSync(${wasm})`,
      `readFileSync(${wasm}).buffer`,
      `new WebAssembly.Module(readFileSync(${wasm}))`,
      `new Response(readFileSync(${wasm}), { headers: { 'content-type': 'application/wasm' } })`,
      `new Response(readFileSync(${wasm}))`,
      `Promise.resolve(readFileSync(${wasm}))`,
    ];
    for (const source of sources) {
      expect(runNode(`await mebo.init({ wasm: ${source} }); console.log(String(mebo.wasmVariant()), decodeOne());`), source).toBe(
        'undefined 12:720',
      );
    }
  });

  it('initSync takes bytes or a Module', () => {
    const wasm = JSON.stringify(join(PACKAGE_ROOT, 'wasm/mebo_simd.wasm'));
    expect(runNode(`mebo.initSync(readFileSync(${wasm}), 'simd'); console.log(mebo.wasmVariant(), decodeOne());`)).toBe(
      'simd 12:720',
    );
    expect(runNode(`mebo.initSync(new WebAssembly.Module(readFileSync(${wasm}))); console.log(decodeOne());`)).toBe('12:720');
  });

  it('objects never freed are released after garbage collection (FinalizationRegistry in the glue)', () => {
    // 60 rounds of 400 unfreed blobs: about 1 GiB of wasm memory if nothing
    // were released. The process exposes gc() and yields so finalizers run.
    const out = runNode(`
      await mebo.init();
      const tagged = readFileSync(${JSON.stringify(join(VECTORS, 'blobs/num-gauge1-tagged-raw-none-raw-none-tags-le-v1.mebo'))});
      for (let round = 0; round < 60; round++) {
        for (let i = 0; i < 400; i++) mebo.NumericBlob.from(tagged).decodeAll();
        globalThis.gc();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      console.log(mebo.wasmMemoryBytes());`, ['--expose-gc']);
    expect(Number(out)).toBeLessThan(64 * 2 ** 20);
  });

  it('initSync while init() is still reading wins, and init() then resolves without a second instance', () => {
    const wasm = JSON.stringify(join(PACKAGE_ROOT, 'wasm/mebo_scalar.wasm'));
    const out = runNode(`
      const pending = mebo.init({ variant: 'simd' });
      mebo.initSync(readFileSync(${wasm}), 'scalar');
      const before = decodeOne();
      await pending;
      await Promise.all([mebo.init(), mebo.init()]);
      console.log(mebo.wasmVariant(), before, decodeOne());`);
    expect(out).toBe('scalar 12:720 12:720');
  });

  it('a bad module is WASM_LOAD, and init can be retried', () => {
    const out = runNode(`
      try { await mebo.init({ wasm: new Uint8Array([0, 97, 115, 109]) }); } catch (e) { console.log(e.code); }
      try { await mebo.init({ wasm: new URL('file:///nonexistent/mebo.wasm') }); } catch (e) { console.log(e.code); }
      await mebo.init();
      console.log(decodeOne());`);
    expect(out.split('\n')).toEqual(['WASM_LOAD', 'WASM_LOAD', '12:720']);
  });
});

describe('loading over HTTP (the browser path)', () => {
  let server: Server;
  let base = '';

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = request.url ?? '';
      if (!path.startsWith('/wasm/')) {
        response.writeHead(404).end();
        return;
      }
      const body = readFileSync(join(PACKAGE_ROOT, path));
      // One URL with the wasm MIME type (streaming compile), one without (buffered).
      const type = path.includes('scalar') ? 'application/octet-stream' : 'application/wasm';
      response.writeHead(200, { 'content-type': type }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('fetches with and without the wasm MIME type, and reports HTTP errors', async () => {
    // The child process fetches from this process's server: run it asynchronously.
    const { execFile } = await import('node:child_process');
    const run = (body: string) =>
      new Promise<string>((resolve, reject) => {
        const script = `import * as mebo from ${JSON.stringify(DIST)};
import { readFileSync } from 'node:fs';
const blobBytes = readFileSync(${JSON.stringify(BLOB)});
${body}`;
        execFile(process.execPath, ['--input-type=module', '-e', script], (error, stdout) =>
          error ? reject(error) : resolve(stdout.trim()),
        );
      });
    const decode = `const b = mebo.NumericBlob.from(blobBytes); console.log(b.length); b.free();`;
    expect(await run(`await mebo.init({ wasm: '${base}/wasm/mebo_simd.wasm' }); ${decode}`)).toBe('12');
    expect(await run(`await mebo.init({ wasm: new URL('${base}/wasm/mebo_scalar.wasm') }); ${decode}`)).toBe('12');
    expect(
      await run(`try { await mebo.init({ wasm: '${base}/missing.wasm' }); } catch (e) { console.log(e.code, e.message); }`),
    ).toMatch(/^WASM_LOAD .*404/);
  });
});

describe('the bundle', () => {
  const bundle = () => readFileSync(join(PACKAGE_ROOT, 'dist/index.js'), 'utf8');

  it('names both builds as literal URLs beside the package, and nothing else', () => {
    const text = bundle();
    expect(text).toContain('new URL("../wasm/mebo_simd.wasm", import.meta.url)');
    expect(text).toContain('new URL("../wasm/mebo_scalar.wasm", import.meta.url)');
    // The glue's own default loader (which points at mebo_wasm_bg.wasm) is tree-shaken away.
    expect(text).not.toContain('mebo_wasm_bg.wasm');
  });

  it('imports node:fs only dynamically, through an expression bundlers leave alone', () => {
    const text = bundle();
    expect(text).not.toMatch(/^import .* from ["']node:/m);
    expect(text).not.toContain('"node:fs/promises"');
    expect(text).toMatch(/import\(\s*\/\* webpackIgnore: true \*\/\s*\/\* @vite-ignore \*\/\s*NODE_FS\s*\)/);
  });

  it('bundles for the browser with esbuild', async () => {
    const text = await browserBundle(`import { init, NumericBlob } from './dist/index.js'; await init(); console.log(NumericBlob);`);
    expect(text).toContain('mebo_simd.wasm');
  });

  it('ships types that do not reach into the generated glue', () => {
    const files = execFileSync('ls', [join(PACKAGE_ROOT, 'dist')], { encoding: 'utf8' }).split('\n').filter((f) => f.endsWith('.d.ts'));
    expect(files).toContain('index.d.ts');
    for (const file of files) expect(readFileSync(join(PACKAGE_ROOT, 'dist', file), 'utf8'), file).not.toContain('mebo_wasm');
  });
});
