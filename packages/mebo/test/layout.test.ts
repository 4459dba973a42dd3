// The SDK's folders and the way its imports run: the entries (src/entries/,
// what package.json's exports name) and mebo/worker (src/worker/) sit on the
// layers (src/*.ts), and the host adapters (src/hosts/) beneath them import
// nothing of the SDK. scripts/import-cycles.mjs catches cycles; this catches
// a layer that reaches up to an entry without closing one.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from './helpers/vectors.js';

const SRC = join(PACKAGE_ROOT, 'src');
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

/** Every module of src/ (declaration files too), as a path relative to src/, with the paths under src/ it imports. */
function imports(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'));
  return new Map(
    files.map((file) => {
      const text = readFileSync(join(SRC, file), 'utf8');
      const targets = [...text.matchAll(IMPORT)].map((m) => relative(SRC, resolve(dirname(join(SRC, file)), m[1]!)).replace(/\.js$/, '.ts'));
      return [file.split('\\').join('/'), targets.map((t) => t.split('\\').join('/'))];
    }),
  );
}

const folder = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '');

describe('src/ layout', () => {
  const graph = imports();

  it('has the entries in entries/ and the host adapters in hosts/', () => {
    const entries = [...graph.keys()].filter((f) => folder(f) === 'entries').sort();
    expect(entries).toEqual(['entries/arrow.ts', 'entries/decode-workerd.ts', 'entries/decode.ts', 'entries/index.ts', 'entries/workerd.ts']);
    const hosts = [...graph.keys()].filter((f) => folder(f) === 'hosts').sort();
    expect(hosts).toEqual(['hosts/wasm-import.d.ts', 'hosts/wasm-location-decode.ts', 'hosts/wasm-location-thread.ts', 'hosts/wasm-location.ts', 'hosts/workerd-module.ts']);
  });

  it('has no layer import an entry: only entries/ and worker/ do', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => folder(t) === 'entries' && !['entries', 'worker'].includes(folder(file))).map((t) => `${file} -> ${t}`),
    );
    expect(upward).toEqual([]);
    // The check sees imports: the pool does import the main entry.
    expect(graph.get('worker/pool.ts')).toContain('entries/index.ts');
  });

  it('has the host adapters import nothing of the SDK (init.ts imports them)', () => {
    const fromHosts = [...graph].filter(([file]) => folder(file) === 'hosts').flatMap(([file, targets]) => targets.filter((t) => !t.startsWith('..')).map((t) => `${file} -> ${t}`));
    expect(fromHosts).toEqual([]);
    expect(graph.get('init.ts')).toContain('hosts/wasm-location.ts');
  });
});
