#!/usr/bin/env node
// Builds dist/: index.js (one ESM bundle of src/ and the wasm-bindgen glue,
// by esbuild), decode.js (`mebo/decode`: the read side of src/ bundled with the
// decode-only builds' glue), worker/pool.js and worker/thread.js
// (`mebo/worker`: they import ../index.js, not a copy of it) and the .d.ts
// files (by tsc). Needs wasm/ built first (scripts/build.mjs at the repository
// root).

import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';

process.chdir(fileURLToPath(new URL('.', import.meta.url)));
rmSync('dist', { recursive: true, force: true });
// The package ships the licenses: the project's (MIT) and, for the zstd
// encoder compiled into the wasm, klauspost/compress's (BSD-3-Clause).
copyFileSync('../../LICENSE', 'LICENSE');
copyFileSync('../../crates/mebo/src/compress/zstd/LICENSE-klauspost', 'LICENSE-klauspost');

const common = {
  bundle: true,
  format: 'esm',
  // Runs in Node, browsers, Deno and workers alike; node:* modules are only
  // imported dynamically where a runtime has them.
  platform: 'neutral',
  external: ['node:*'],
  target: 'es2022',
  sourcemap: true,
  logLevel: 'warning',
};
await build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/index.js' });

// `mebo/decode`: the same modules on the decode-only builds. Their glue
// (wasm/mebo_decode.js) has no encoder classes, so a module of the read side
// that imported one would fail this build; the builds' URLs come from
// src/wasm-location-decode.ts.
const decodeOnly = {
  name: 'decode-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/wasm\/mebo_wasm\.js$/ }, () => ({ path: resolve('wasm/mebo_decode.js') }));
    b.onResolve({ filter: /^\.\/wasm-location\.js$/ }, () => ({ path: resolve('src/wasm-location-decode.ts') }));
  },
};
const decode = await build({ ...common, entryPoints: ['src/decode.ts'], outfile: 'dist/decode.js', plugins: [decodeOnly], metafile: true });
const bundled = Object.keys(decode.metafile.inputs);
for (const [what, bad] of [
  ['the full glue', 'wasm/mebo_wasm.js'],
  ['the full builds\' URLs', 'src/wasm-location.ts'],
  ['an encoder', 'src/encoder.ts'],
]) {
  if (bundled.includes(bad)) throw new Error(`build-sdk: dist/decode.js bundles ${what} (${bad})`);
}

// The pool and its worker share the main bundle: one module instance per realm.
const mainEntryExternal = {
  name: 'main-entry-external',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/index\.js$/ }, () => ({ path: '../index.js', external: true }));
  },
};
await build({
  ...common,
  entryPoints: { 'worker/pool': 'src/worker/pool.ts', 'worker/thread': 'src/worker/thread.ts' },
  outdir: 'dist',
  plugins: [mainEntryExternal],
});

const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
inlineBoundaryTypes([
  { file: 'boundary', decodeToo: true },
  { file: 'boundary-encode', decodeToo: false },
]);

/**
 * The boundary types (src/boundary.ts, src/boundary-encode.ts) re-export
 * declarations of the glue's .d.ts (the `typescript_custom_section`s of
 * crates/mebo-wasm), which is not published: their dist/*.d.ts get the
 * declarations themselves, with their doc comments, in place of the
 * re-export. A type one of them uses must be re-exported by it or by a file
 * before it in `files` (imported from there). The read side's (`decodeToo`)
 * must be declared alike by the decode-only glue, which `mebo/decode` runs on.
 */
function inlineBoundaryTypes(files) {
  const parse = (path) => ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  // Each declaration's text with its doc comment (not the file's leading comments).
  const declarations = (source) =>
    new Map(
      source.statements
        .filter((s) => ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s))
        .map((s) => {
          const doc = (ts.getLeadingCommentRanges(source.text, s.getFullStart()) ?? []).filter((c) => source.text.startsWith('/**', c.pos)).at(-1);
          return [s.name.text, source.text.slice(doc?.pos ?? s.getStart(), s.getEnd())];
        }),
    );
  const glue = parse('wasm/mebo_wasm.d.ts');
  const declared = declarations(glue);
  const decodeDeclared = declarations(parse('wasm/mebo_decode.d.ts'));
  const nodes = new Map(glue.statements.filter((s) => ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)).map((s) => [s.name.text, s]));
  const provided = new Map();
  for (const { file, decodeToo } of files) {
    const path = `dist/${file}.d.ts`;
    const names = [];
    for (const s of parse(path).statements) {
      if (!ts.isExportDeclaration(s) || s.moduleSpecifier?.text !== '../wasm/mebo_wasm.js' || !s.exportClause) {
        throw new Error(`build-sdk: src/${file}.ts may only re-export types of the glue (export type { … } from '../wasm/mebo_wasm.js')`);
      }
      names.push(...s.exportClause.elements.map((e) => e.name.text));
    }
    const imports = new Map();
    const visit = (node, from) => {
      if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName)) {
        const used = node.typeName.text;
        if (nodes.has(used) && !names.includes(used)) {
          const owner = provided.get(used);
          if (owner === undefined) throw new Error(`build-sdk: ${from} uses ${used}: re-export it from src/${file}.ts`);
          imports.set(owner, [...(imports.get(owner) ?? []), used]);
        }
      }
      ts.forEachChild(node, (child) => visit(child, from));
    };
    for (const name of names) {
      if (!nodes.has(name)) throw new Error(`build-sdk: src/${file}.ts re-exports ${name}, which wasm/mebo_wasm.d.ts does not declare`);
      if (decodeToo && decodeDeclared.get(name) !== declared.get(name)) {
        throw new Error(`build-sdk: wasm/mebo_decode.d.ts, the decode-only glue, does not declare ${name} as wasm/mebo_wasm.d.ts does`);
      }
      visit(nodes.get(name), name);
      provided.set(name, file);
    }
    const head = [
      `// The types of what crosses the wasm boundary (src/${file}.ts), declared in`,
      '// Rust beside the code that builds or reads them (crates/mebo-wasm) and',
      '// copied here from the wasm-bindgen glue by build-sdk.mjs.',
    ];
    const importLines = [...imports].map(([owner, used]) => `import type { ${[...new Set(used)].sort().join(', ')} } from './${owner}.js';`);
    writeFileSync(path, [...head, ...importLines, '', names.map((name) => declared.get(name)).join('\n\n'), ''].join('\n'));
  }
  const reaching = readdirSync('dist', { recursive: true }).filter((f) => String(f).endsWith('.d.ts') && readFileSync(join('dist', String(f)), 'utf8').includes('mebo_wasm'));
  if (reaching.length > 0) throw new Error(`build-sdk: ${reaching.join(', ')} reach into the glue's types (import them through src/boundary.ts)`);
}
