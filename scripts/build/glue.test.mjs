import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import { ROOT } from '../lib.mjs';
import { patchDeclarations, patchGlue } from './glue.mjs';
import { wasmModule } from './fixtures/wasm.mjs';

const FIXTURE = fileURLToPath(new URL('fixtures/mebo_decode.wasm-bindgen-0.2.129.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mebo-glue-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The fixture (the decode-only glue as wasm-bindgen 0.2.129 generates it),
 * and every glue of the handles the last build generated (kept unpatched in
 * target/wasm-bindgen; the zstd part's has none and is installed as generated).
 */
function generatedGlues() {
  const glues = [[FIXTURE, readFileSync(FIXTURE, 'utf8')]];
  const built = join(ROOT, 'target/wasm-bindgen');
  if (existsSync(built)) {
    for (const variant of readdirSync(built)) {
      for (const file of readdirSync(join(built, variant)).filter((f) => /^mebo_\w+\.js$/.test(f) && f !== 'mebo_zstd.js')) glues.push([join(built, variant, file), readFileSync(join(built, variant, file), 'utf8')]);
    }
  }
  return glues;
}

test('every finalizer frees through the exports it was registered with', () => {
  for (const [path, original] of generatedGlues()) {
    const classes = [...original.matchAll(/^export class (\w+Handle) \{$/gm)].map((m) => m[1]);
    assert.ok(classes.length >= 4, `${path}: handle classes`);
    const { glue, handleKinds } = patchGlue(original);
    assert.equal(handleKinds, classes.length, path);
    for (const name of classes) {
      const free = `__wbg_${name.toLowerCase()}_free`;
      assert.ok(glue.includes(`new FinalizationRegistry(({ ptr, exports }) => exports.${free}(ptr, 1))`), `${path}: ${name}'s finalizer`);
      assert.match(glue, new RegExp(`${name}Finalization\\.register\\((\\w+), \\{ ptr: \\1\\.__wbg_ptr, exports: wasm \\}, \\1\\)`), `${path}: ${name}'s registration`);
    }
    assert.doesNotMatch(glue, /ptr => wasm\./, path);
    // Nothing else changed: removing the edits gives the glue back.
    const undone = glue
      .replace(/^export function __wbg_reset\(\) \{[^\n]*\}\n/m, '')
      .replace(/new FinalizationRegistry\(\(\{ ptr, exports \}\) => exports\.(\w+)\(ptr, 1\)\)/g, 'new FinalizationRegistry(ptr => wasm.$1(ptr, 1))')
      .replace(/\{ ptr: (\w+)\.__wbg_ptr, exports: wasm \}/g, '$1.__wbg_ptr');
    assert.equal(undone, original, path);
  }
});

test('after __wbg_reset the next init makes a new instance', async () => {
  const { glue } = patchGlue(readFileSync(FIXTURE, 'utf8'));
  const file = join(dir, 'glue.mjs');
  writeFileSync(file, glue);
  const g = await import(pathToFileURL(file).href);
  // A module with what init calls (`__wbindgen_start`) stands in for mebo's.
  const module = new WebAssembly.Module(wasmModule({ functions: 1, exports: [{ name: '__wbindgen_start', index: 0 }] }));
  const first = g.initSync({ module });
  assert.equal(g.initSync({ module }), first, 'one instance until reset');
  g.__wbg_reset();
  const second = g.initSync({ module });
  assert.notEqual(second, first);
  assert.equal(typeof second.__wbindgen_start, 'function');
  g.__wbg_reset();
  assert.notEqual(await g.default({ module_or_path: module }), second, 'the async init too');
});

test('a glue without the expected shape fails the build, naming what is missing', () => {
  const original = readFileSync(FIXTURE, 'utf8');
  assert.throws(() => patchGlue(original.replaceAll('new FinalizationRegistry(ptr => wasm.', 'new FinalizationRegistry((ptr) => wasm.')), /no finalization registry/);
  assert.throws(() => patchGlue(original.replaceAll('.register(obj, obj.__wbg_ptr, obj)', '.register(obj, obj.__wbg_ptr)')), /no handle registration/);
  assert.throws(() => patchGlue(original.replace('let wasmModule, wasmInstance, wasm;', 'let wasm, wasmModule;')), /no instance variables/);
  // One registration in another form is left behind: refused.
  const register = 'NumericBlobHandleFinalization.register(obj, obj.__wbg_ptr, obj)';
  assert.throws(() => patchGlue(original.replace(register, 'NumericBlobHandleFinalization.register(obj, obj.__wbg_ptr, obj, 1)')), /left unpatched/);
  assert.throws(() => patchGlue(original.replace(register, 'NumericBlobHandleFinalization.register(obj, ptr0, obj)')), /4 finalizers but 3 registrations/);
});

test('the declarations gain __wbg_reset', () => {
  const dts = patchDeclarations('export function blobKind(bytes: Uint8Array): BlobKind | undefined;\n');
  assert.match(dts, /^export function blobKind/);
  assert.match(dts, /\nexport function __wbg_reset\(\): void;\n$/);
});
