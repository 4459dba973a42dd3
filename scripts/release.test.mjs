// The release checks' own logic, on small inputs: the API report comparison
// (scripts/api.mjs) and the package file lists (scripts/publish-check.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withTree } from './test-tree.mjs';
import { differences } from './api.mjs';
import { crateProblems, namedFiles, npmProblems } from './publish-check.mjs';

test('a changed, missing or extra API report is a difference; the same one is not', () => {
  const recorded = { 'a.api.md': 'export function f(): void;\n', 'b.api.md': 'export const x: number;\n', 'gone.api.md': 'export type T = 1;\n' };
  withTree(recorded, (dir) => {
    const made = { a: 'export function f(): void;\n', b: 'export const x: string;\n', c: 'export class C {}\n' };
    assert.deepEqual(differences(made, dir).sort(), ['b.api.md', 'c.api.md', 'gone.api.md']);
    assert.deepEqual(differences({ a: made.a }, dir).sort(), ['b.api.md', 'gone.api.md']);
  });
});

const PKG = {
  description: 'd',
  license: 'MIT',
  keywords: ['k'],
  engines: { node: '>=18' },
  types: './dist/index.d.ts',
  main: './dist/index.cjs',
  exports: {
    '.': { require: { types: './dist/index.d.cts', default: './dist/index.cjs' }, default: './dist/index.js' },
    './wasm/*': './wasm/*',
  },
  typesVersions: { '*': { worker: ['./dist/worker/pool.d.ts'] } },
  bin: { mebo: 'bin/mebo.js' },
};

test('every file package.json names must be packed, and nothing else a user does not need', () => {
  assert.deepEqual(namedFiles(PKG).sort(), ['bin/mebo.js', 'dist/index.cjs', 'dist/index.d.cts', 'dist/index.d.ts', 'dist/index.js', 'dist/worker/pool.d.ts']);
  const whole = ['README.md', 'LICENSE', 'package.json', 'bin/mebo.js', 'dist/index.cjs', 'dist/index.d.cts', 'dist/index.d.ts', 'dist/index.js', 'dist/worker/pool.d.ts'];
  assert.deepEqual(npmProblems(PKG, whole), []);
  const broken = whole.filter((f) => f !== 'dist/index.d.cts' && f !== 'LICENSE').concat('test/api.test.ts', 'dist/index.js.map');
  const { keywords, ...noKeywords } = PKG;
  assert.ok(keywords);
  assert.deepEqual(npmProblems(noKeywords, broken), [
    'dist/index.d.cts is named by package.json but not packed',
    'LICENSE is not packed',
    'test/api.test.ts is packed but no user needs it',
    'dist/index.js.map is packed but no user needs it',
    'package.json has no "keywords"',
  ]);
});

test("a crate's package holds its sources, README and license, not its tests", () => {
  assert.deepEqual(crateProblems(['Cargo.toml', 'LICENSE', 'README.md', 'src/lib.rs']), []);
  assert.deepEqual(crateProblems(['Cargo.toml', 'src/lib.rs', 'tests/hostile.rs']), [
    'README.md is not packaged',
    'LICENSE is not packaged',
    'tests/hostile.rs is packaged but no user builds it',
  ]);
});
