#!/usr/bin/env node
// Builds dist/: index.js (one ESM bundle of src/ and the wasm-bindgen glue,
// by esbuild), decode.js (`mebo/decode`: the read side of src/ bundled with the
// decode-only builds' glue; decode.min.js, the same minified, for a page with
// no bundler), worker/pool.js and worker/thread.js
// (`mebo/worker`: they import ../index.js, not a copy of it) and the .d.ts
// files (by tsc). Needs wasm/ built first (scripts/build.mjs at the repository
// root).
//
// The entries (src/entries/, what package.json's exports name) are built to
// dist/'s top, src/entries/x.ts to dist/x.js, and every other module keeps its
// place under src/ (src/worker/pool.ts to dist/worker/pool.js): see distPath.

import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';

process.chdir(fileURLToPath(new URL('.', import.meta.url)));
// `--decode-bundle OUT`: only `mebo/decode`'s bundle, to OUT, for the profile
// the light core is split by (scripts/build/split-profile.mjs), which runs
// before the package is built.
const decodeBundle = process.argv.includes('--decode-bundle') ? resolve(process.argv[process.argv.indexOf('--decode-bundle') + 1]) : undefined;
if (decodeBundle === undefined) rmSync('dist', { recursive: true, force: true });
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
  // No source maps: the bundles are not minified (they read as the sources
  // do, less the types), and maps would be a fifth of the tarball.
  logLevel: 'warning',
};

/** Where a file of the package lands in dist/: src/entries/x at dist/x, src/y/x at dist/y/x; a file outside src/ (wasm/) stays. */
function distPath(path) {
  const inSrc = relative(resolve('src'), resolve(path));
  if (inSrc.startsWith('..')) return resolve(path);
  return resolve('dist', inSrc.replace(/^entries(?:[\\/]|$)/, ''));
}
/** `specifier`, relative to a module in `fromDir` of src/, as the same file relative to `outDir` (a './' or '../' path). */
function rebase(specifier, fromDir, outDir) {
  const path = relative(outDir, distPath(resolve(fromDir, specifier))).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}
/**
 * In a bundle import.meta.url is the bundle's URL, not its source module's:
 * each `new URL('./…' or '../…', import.meta.url)` of a module of src/ (the
 * builds init() finds beside the package, the pool's thread.js) is rewritten
 * to name the same file from the output, which is the literal that bundlers
 * downstream follow. Every build gets this plugin (sdkBuild).
 */
const URL_LITERAL = /new URL\((['"])(\.\.?\/[^'"]*)\1,\s*import\.meta\.url\)/g;
const rebaseUrls = {
  name: 'rebase-urls',
  setup(b) {
    const outDir = resolve(b.initialOptions.outdir ?? dirname(b.initialOptions.outfile));
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const contents = text.replace(URL_LITERAL, (_, quote, path) => `new URL(${quote}${rebase(path, dirname(args.path), outDir)}${quote}, import.meta.url)`);
      return contents === text ? undefined : { contents, loader: 'ts' };
    });
  },
};
const sdkBuild = (options) => build({ ...options, plugins: [...(options.plugins ?? []), rebaseUrls] });


// `mebo/decode`: the same modules on the decode-only builds and the light
// core. The light core's glue (wasm/mebo_core.js) serves both: it is the
// decode-only glue plus the core's imports, the zstd part's decoder
// (`mebo-zstd-part`, resolved to src/zstd-part.ts) and the namespace of the
// core's rest (`mebo-core-rest`, src/core-rest.ts), which a decode-only build
// does not ask for (scripts/build checks the two glues agree). It has no
// encoder classes, so a module of the read side that imported one would fail
// this build; the builds' URLs come from src/hosts/wasm-location-decode.ts.
const decodeOnly = {
  name: 'decode-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/wasm\/mebo_wasm\.js$/ }, () => ({ path: resolve('wasm/mebo_core.js') }));
    b.onResolve({ filter: /^mebo-zstd-part$/ }, () => ({ path: resolve('src/zstd-part.ts') }));
    b.onResolve({ filter: /^mebo-core-rest$/ }, () => ({ path: resolve('src/core-rest.ts') }));
    b.onResolve({ filter: /^\.\/hosts\/wasm-location\.js$/ }, () => ({ path: resolve('src/hosts/wasm-location-decode.ts') }));
  },
};
if (decodeBundle !== undefined) {
  await sdkBuild({ ...common, entryPoints: ['src/entries/decode.ts'], outfile: decodeBundle, plugins: [decodeOnly] });
  process.exit(0);
}
await sdkBuild({ ...common, entryPoints: ['src/entries/index.ts'], outfile: 'dist/index.js' });
const decode = await sdkBuild({ ...common, entryPoints: ['src/entries/decode.ts'], outfile: 'dist/decode.js', plugins: [decodeOnly], metafile: true });
const bundled = Object.keys(decode.metafile.inputs);
for (const [what, bad] of [
  ['the full glue', 'wasm/mebo_wasm.js'],
  ['the full builds\' URLs', 'src/hosts/wasm-location.ts'],
  ['an encoder', 'src/encoder.ts'],
]) {
  if (bundled.includes(bad)) throw new Error(`build-sdk: dist/decode.js bundles ${what} (${bad})`);
}
// The same bundle minified, for a page that imports the package straight from
// a CDN with no bundler to minify it (its own URLs are decode.js's: the same
// folder). decode.js stays the readable one, and the one bundlers are given.
await sdkBuild({ ...common, entryPoints: ['src/entries/decode.ts'], outfile: 'dist/decode.min.js', plugins: [decodeOnly], minify: true });

// `mebo/worker`. The pool shares the main bundle (../index.js, of
// src/entries/index.ts: one module instance per realm) and starts its workers
// with src/worker/spawn.ts (browsers: `new Worker(new URL('./thread.js',
// import.meta.url))`, the shape bundlers build) or src/worker/spawn-node.ts
// (worker_threads; the `node` and `require` builds). The browser worker,
// dist/worker/thread.js, bundles the SDK itself with no .wasm URL (the pool
// hands it the compiled module): a bundler may wrap it as a classic or module
// worker, or copy it as a file.
const mainEntryExternal = (to = '../index.js') => ({
  name: 'main-entry-external',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/entries\/index\.js$/ }, () => ({ path: to, external: true }));
  },
});
const nodeSpawn = {
  name: 'node-spawn',
  setup(b) {
    b.onResolve({ filter: /^\.\/spawn\.js$/ }, () => ({ path: resolve('src/worker/spawn-node.ts') }));
  },
};
const threadWasmLocation = {
  name: 'thread-wasm-location',
  setup(b) {
    b.onResolve({ filter: /^\.\/hosts\/wasm-location\.js$/ }, () => ({ path: resolve('src/hosts/wasm-location-thread.ts') }));
  },
};
await sdkBuild({ ...common, entryPoints: ['src/worker/pool.ts'], outfile: 'dist/worker/pool.js', plugins: [mainEntryExternal()] });
await sdkBuild({ ...common, entryPoints: ['src/worker/pool.ts'], outfile: 'dist/worker/pool-node.js', plugins: [mainEntryExternal(), nodeSpawn] });
await sdkBuild({ ...common, entryPoints: ['src/worker/thread-node.ts'], outfile: 'dist/worker/thread-node.js', plugins: [mainEntryExternal()] });
const thread = await sdkBuild({ ...common, entryPoints: ['src/worker/thread.ts'], outfile: 'dist/worker/thread.js', plugins: [threadWasmLocation], metafile: true });
for (const file of ['dist/worker/pool.js', 'dist/worker/thread.js']) {
  const text = readFileSync(file, 'utf8');
  if (/worker_threads|thread-node/.test(text)) throw new Error(`build-sdk: ${file}, a browser build, names the Node worker`);
  if (/\.wasm['"]/.test(text)) throw new Error(`build-sdk: ${file} names a .wasm`);
}
if (!Object.keys(thread.metafile.inputs).includes('src/hosts/wasm-location-thread.ts')) throw new Error('build-sdk: dist/worker/thread.js was not built without the wasm location');

// `mebo/arrow`: src/entries/arrow.ts alone. The SDK comes from the main bundle
// (./index.js, one module instance) and apache-arrow, an optional peer
// dependency, from the user's install; the build fails if anything else of
// src/ or the glue would be bundled a second time.
const arrow = await sdkBuild({
  ...common,
  entryPoints: ['src/entries/arrow.ts'],
  outfile: 'dist/arrow.js',
  external: [...common.external, 'apache-arrow'],
  plugins: [
    {
      name: 'arrow-main-entry-external',
      setup(b) {
        b.onResolve({ filter: /^\.\/index\.js$/ }, () => ({ path: './index.js', external: true }));
      },
    },
  ],
  metafile: true,
});
const arrowInputs = Object.keys(arrow.metafile.inputs);
if (arrowInputs.join() !== 'src/entries/arrow.ts') throw new Error(`build-sdk: dist/arrow.js bundles more than src/entries/arrow.ts: ${arrowInputs.join(', ')}`);

// Cloudflare Workers (the `workerd` export condition): dist/workerd.js and
// dist/decode-workerd.js import the simd build as a module (the Workers
// convention) and hand it to init(); the SDK itself stays ./index.js
// (./decode.js), not a copy.
await sdkBuild({
  ...common,
  entryPoints: { workerd: 'src/entries/workerd.ts', 'decode-workerd': 'src/entries/decode-workerd.ts' },
  outdir: 'dist',
  plugins: [
    {
      name: 'workerd-external',
      setup(b) {
        b.onResolve({ filter: /^\.\/(index|decode)\.js$|\.wasm$/ }, (args) => ({ path: rebase(args.path, args.resolveDir, resolve('dist')), external: true }));
      },
    },
  ],
});

// Node, Deno and Bun (the `node` export condition): dist/index-node.js and
// dist/decode-node.js are ./index.js and ./decode.js (the same module
// instances) plus, for server bundles that moved the .wasm out of reach, the
// simd build as a module of base64 (dist/*.wasm.js, imported only then; see
// setServerWasm in src/init.ts). Marked as having side effects in
// package.json, so that bundlers keep the registration.
for (const [entry, sdk, wasm] of [
  ['index-node', 'index', 'mebo_simd'],
  ['decode-node', 'decode', 'mebo_decode_simd'],
]) {
  writeFileSync(`dist/${wasm}.wasm.js`, `// wasm/${wasm}.wasm as base64 (build-sdk.mjs), for ./${entry}.js.\nexport default ${JSON.stringify(readFileSync(`wasm/${wasm}.wasm`).toString('base64'))};\n`);
  writeFileSync(
    `dist/${entry}.js`,
    [
      `// The \`node\` export condition's entry (build-sdk.mjs): ./${sdk}.js, whose init() falls back`,
      `// to the embedded simd build where a server bundle left no readable .wasm.`,
      `import { setServerWasm } from './${sdk}.js';`,
      `setServerWasm(() => import('./${wasm}.wasm.js'));`,
      `export * from './${sdk}.js';`,
      '',
    ].join('\n'),
  );
}

// CommonJS (the `require` export condition), for require('mebo') where
// Node has no require(esm) (Node 20): the same entries as .cjs files (the
// arrow one requires apache-arrow's CommonJS build).
// import.meta.url becomes the .cjs file's own URL, so init() finds wasm/
// beside the package and the pool its thread.js as the ESM builds do.
const cjs = {
  ...common,
  format: 'cjs',
  platform: 'node',
  target: 'node18',
  define: { 'import.meta.url': '__mebo_import_meta_url' },
  banner: { js: "const __mebo_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
};
await sdkBuild({ ...cjs, entryPoints: ['src/entries/index.ts'], outfile: 'dist/index.cjs' });
await sdkBuild({ ...cjs, entryPoints: ['src/entries/decode.ts'], outfile: 'dist/decode.cjs', plugins: [decodeOnly] });
await sdkBuild({
  ...cjs,
  entryPoints: ['src/entries/arrow.ts'],
  outfile: 'dist/arrow.cjs',
  external: [...cjs.external, 'apache-arrow'],
  plugins: [
    {
      name: 'arrow-main-entry-external-cjs',
      setup(b) {
        b.onResolve({ filter: /^\.\/index\.js$/ }, () => ({ path: './index.cjs', external: true }));
      },
    },
  ],
});
await sdkBuild({ ...cjs, entryPoints: ['src/worker/pool.ts'], outfile: 'dist/worker/pool.cjs', plugins: [mainEntryExternal('../index.cjs'), nodeSpawn] });

// Each URL literal of a bundle names a file of the package (see rebaseUrls).
for (const file of readdirSync('dist', { recursive: true }).map(String).filter((f) => /\.c?js$/.test(f))) {
  for (const [, path] of readFileSync(join('dist', file), 'utf8').matchAll(/new URL\("(\.\.?\/[^"]*)", (?:import\.meta\.url|__mebo_import_meta_url)\)/g)) {
    if (!existsSync(join('dist', dirname(file), path))) throw new Error(`build-sdk: dist/${file} names ${path}, which the package does not hold`);
  }
}

/** A relative import of a declaration file (`'./x.js'`). */
const relativeImport = /(['"])(\.\.?\/[^'"]*)\.js\1/g;
const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
placeDeclarations();
inlineBoundaryTypes([
  { file: 'boundary', decodeToo: true },
  { file: 'boundary-encode', decodeToo: false },
]);

// Declarations: the entries' types (package.json "exports") and what they
// import; tsc's other .d.ts files (modules stripInternal left empty, the
// worker thread's) are removed. Under node16 resolution a .d.ts of this
// package ("type": "module") is ESM, which TypeScript will not let a CommonJS
// file require, so each .d.ts the `require` entries reach gets a .d.cts twin
// whose relative imports name the twins ('./x.js' -> './x.cjs', which
// TypeScript reads as './x.d.cts').
/** Every .d.ts reached from `roots` by relative imports. */
function declarationsFrom(roots) {
  const seen = new Set();
  for (const pending = [...roots]; pending.length > 0; ) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, , path] of readFileSync(file, 'utf8').matchAll(relativeImport)) pending.push(join(dirname(file), `${path}.d.ts`));
  }
  return seen;
}
/** The "types" of package.json's exports: [condition path, file]. */
function exportedTypes(node, conditions = []) {
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'types' && typeof value === 'string' ? [[conditions, value]] : exportedTypes(value, [...conditions, key]),
  );
}
const types = exportedTypes(JSON.parse(readFileSync('package.json', 'utf8')).exports);
const esmRoots = types.filter(([, file]) => file.endsWith('.d.ts')).map(([, file]) => join(file));
const cjsRoots = types.filter(([conditions, file]) => conditions.includes('require') && file.endsWith('.d.cts')).map(([, file]) => join(file.replace(/\.d\.cts$/, '.d.ts')));
const kept = declarationsFrom(esmRoots);
for (const file of declarationsFrom(cjsRoots)) {
  writeFileSync(file.replace(/\.d\.ts$/, '.d.cts'), readFileSync(file, 'utf8').replace(relativeImport, '$1$2.cjs$1'));
}
for (const file of readdirSync('dist', { recursive: true }).map((f) => join('dist', f))) {
  if (file.endsWith('.d.ts') && !kept.has(file)) rmSync(file);
}
removeEmptyFolders('dist');

/**
 * tsc mirrors src/ in dist/; the entries' declarations move beside their
 * bundles (distPath), and each relative import of a declaration follows the
 * file it names.
 */
function placeDeclarations() {
  const emitted = readdirSync('dist', { recursive: true }).map((f) => String(f)).filter((f) => f.endsWith('.d.ts'));
  const placed = new Map(emitted.map((f) => [resolve('dist', f), distPath(join('src', f))]));
  if (new Set(placed.values()).size !== placed.size) throw new Error('build-sdk: two declarations would land on one file of dist/ (an entry named as a module of src/)');
  for (const [file, to] of placed) {
    const sourceDir = dirname(join('src', relative(resolve('dist'), file)));
    const text = readFileSync(file, 'utf8').replace(relativeImport, (_, quote, path) => {
      const moved = relative(dirname(to), distPath(join(sourceDir, `${path}.js`))).split(sep).join('/');
      return `${quote}${moved.startsWith('.') ? moved : `./${moved}`}${quote}`;
    });
    if (to !== file) rmSync(file);
    writeFileSync(to, text);
  }
}

/** Removes the folders under `dir` that hold no file (tsc's, once their declarations moved or were dropped). */
function removeEmptyFolders(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    removeEmptyFolders(path);
    if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
  }
}

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
      // A type named in a position (`tags?: JoinedStrings`) or extended (`extends JoinedStrings`).
      const named = ts.isTypeReferenceNode(node) ? node.typeName : ts.isExpressionWithTypeArguments(node) ? node.expression : undefined;
      if (named !== undefined && ts.isIdentifier(named)) {
        const used = named.text;
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
