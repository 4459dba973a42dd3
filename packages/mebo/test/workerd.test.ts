// The SDK in Cloudflare's workerd, run by miniflare: a worker bundled the way
// wrangler does it (esbuild, the .wasm left as a CompiledWasm module), once
// with initSync(module) and once with init({ wasm: module }), decodes the host
// sample sent in the request body; the answers must equal the vectors' inputs.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectSampleDecoded, sampleBase64, sampleBlobs } from './helpers/hosts.js';
import { framed } from './helpers/stream.js';
import { PACKAGE_ROOT } from './helpers/vectors.js';

/** The worker bundle for one way of initializing; `mebo/wasm/*.wasm` stays an import of the module beside it. */
async function bundleWorker(init: 'sync' | 'async'): Promise<string> {
  const result = await build({
    entryPoints: [join(PACKAGE_ROOT, 'test/hosts/worker.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker'],
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    define: { INIT: JSON.stringify(init) },
    plugins: [
      {
        name: 'wasm-module',
        setup(b) {
          b.onResolve({ filter: /\.wasm$/ }, (args) => ({ path: `./${args.path.split('/').pop()}`, external: true }));
        },
      },
    ],
  });
  return result.outputFiles[0]!.text;
}

let mf: Miniflare | undefined;

beforeAll(async () => {
  const wasm = readFileSync(join(PACKAGE_ROOT, 'wasm/mebo_simd.wasm'));
  const worker = async (name: 'sync' | 'async') => ({
    name,
    compatibilityDate: '2025-01-01',
    modules: [
      { type: 'ESModule' as const, path: join(PACKAGE_ROOT, 'worker.js'), contents: await bundleWorker(name) },
      { type: 'CompiledWasm' as const, path: join(PACKAGE_ROOT, 'mebo_simd.wasm'), contents: wasm },
    ],
  });
  mf = new Miniflare({ workers: [await worker('sync'), await worker('async')] });
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
});

it.each(['sync', 'async'] as const)('decodes the host sample in workerd after %s init with the imported module', async (name) => {
  const body = JSON.stringify(sampleBase64());
  // getWorker's declared type needs @cloudflare/workers-types; its fetch is the standard one.
  const worker = (await mf!.getWorker(name)) as unknown as { fetch(url: string, init: RequestInit): Promise<Response> };
  const response = await worker.fetch('http://localhost/', { method: 'POST', body, signal: AbortSignal.timeout(60_000) });
  expect(response.status).toBe(200);
  const out = (await response.json()) as { moduleIsCompiled: boolean; init: string; variant: string; results: Record<string, never> };
  expect(out.moduleIsCompiled).toBe(true);
  expect(out.init).toBe(name);
  expect(out.variant).toBe('simd');
  expectSampleDecoded(out.results);
});

it('reads a stream of blobs from a request body with decodeStream, in chunks as they are sent', async () => {
  const sample = sampleBlobs();
  const bytes = framed(sample.map((s) => s.bytes));
  // Sent in small chunks: the worker reads the body as it arrives.
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + 1000));
      at += 1000;
    },
  });
  const worker = (await mf!.getWorker('async')) as unknown as { fetch(url: string, init: RequestInit & { duplex: 'half' }): Promise<Response> };
  const names = sample.map((s) => s.name).join(',');
  const response = await worker.fetch(`http://localhost/stream?names=${names}`, { method: 'POST', body, duplex: 'half', signal: AbortSignal.timeout(60_000) });
  expect(response.status).toBe(200);
  const out = (await response.json()) as { results: Record<string, never>; streamError?: unknown };
  expect(out.streamError).toBeUndefined();
  expectSampleDecoded(out.results);
  // A cut stream: every complete blob, then TRUNCATED.
  const cut = await worker.fetch(`http://localhost/stream?names=${names}`, { method: 'POST', body: bytes.slice(0, bytes.length - 1), duplex: 'half' });
  const cutOut = (await cut.json()) as { results: Record<string, unknown>; streamError?: { code: string } };
  expect(Object.keys(cutOut.results).length).toBe(sample.length - 1);
  expect(cutOut.streamError?.code).toBe('TRUNCATED');
});
