// The package as users get it: `npm pack` of packages/mebo (dist/ and wasm/
// built beforehand), installed into the projects under test/consumers/ the
// way each ecosystem installs and builds, each in a fresh temporary directory
// outside the repository, then run: Node ESM and CommonJS (without
// require(esm)), a Node `mebo/worker` pool that exits without terminate(),
// Deno, Bun, a Worker in workerd (miniflare), Vitest under jsdom, and browser
// apps built by esbuild, Vite (production build and dev server), webpack,
// Parcel, Rollup, Next.js (webpack and Turbopack, client page and route
// handler, `output: 'standalone'`) and Angular (`ng new`, the application
// builder, production build and `ng serve`), run in headless Chromium. Every consumer decodes the host sample (12 vectors that
// together use every option value) and must give the vectors' inputs bit for
// bit. Also: the tarball's exact file list, its license files, and a clean
// `npm publish --dry-run`.
//
// The consumers install and build side by side (CONCURRENT at a time, the
// slowest first) while the tests run in order, each waiting for its own; one
// install per tool. npm's cache is shared.
// MEBO_KEEP_CONSUMERS=1 keeps the temporary directory (its path is printed);
// MEBO_CONSUMERS=angular,vite prepares only those (with -t to run their tests).

import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { launchChromium, pageOutcome, type Loaded } from './helpers/chromium.js';
import { FIRST_LOAD_BUDGET } from './helpers/first-load.js';
import { expectMatchesInput, expectSampleDecoded, rawInput, sampleCases, type DecodedDocument, type RawMetric } from './helpers/hosts.js';
import { childEnv, MINUTES, packSdk, run, type Output, type Packed } from './helpers/tarball.js';
import { manifest, PACKAGE_ROOT, REPO_ROOT, VECTORS, type Case } from './helpers/vectors.js';

const CONSUMERS = join(PACKAGE_ROOT, 'test/consumers');
const KEEP = process.env.MEBO_KEEP_CONSUMERS === '1';
// A test waits for its consumer's install and build, which run side by side with the others'.
vi.setConfig({ testTimeout: 20 * MINUTES });

/**
 * Every file the tarball holds: what a user needs (the ESM, CommonJS, node
 * and workerd entries and their declarations, the subpath folders for
 * resolvers that ignore `exports` (Parcel's default), the CLI, four wasm
 * builds and the simd ones embedded for servers, the licenses) and nothing
 * else. A change here is a change to what users
 * download.
 */
const TARBALL_FILES = [
  'LICENSE',
  'LICENSE-klauspost',
  'README.md',
  'arrow/package.json',
  'bin/mebo.js',
  'decode/package.json',
  'dist/arrow.cjs',
  'dist/arrow.d.cts',
  'dist/arrow.d.ts',
  'dist/arrow.js',
  'dist/blob.d.cts',
  'dist/blob.d.ts',
  'dist/blob-set.d.cts',
  'dist/blob-set.d.ts',
  'dist/boundary-encode.d.cts',
  'dist/boundary-encode.d.ts',
  'dist/boundary.d.cts',
  'dist/boundary.d.ts',
  'dist/cli.js',
  'dist/decode-node.js',
  'dist/decode-workerd.d.ts',
  'dist/decode-workerd.js',
  'dist/decode.cjs',
  'dist/decode.d.cts',
  'dist/decode.d.ts',
  'dist/decode.js',
  'dist/decode.min.js',
  'dist/document.js',
  'dist/encoder.d.cts',
  'dist/encoder.d.ts',
  'dist/errors.d.cts',
  'dist/errors.d.ts',
  'dist/hash.d.cts',
  'dist/hash.d.ts',
  'dist/index-node.js',
  'dist/index.cjs',
  'dist/index.d.cts',
  'dist/index.d.ts',
  'dist/index.js',
  'dist/init.d.cts',
  'dist/init.d.ts',
  'dist/kind.d.cts',
  'dist/mebo_decode_simd.wasm.js',
  'dist/mebo_simd.wasm.js',
  'dist/kind.d.ts',
  'dist/module.d.cts',
  'dist/module.d.ts',
  'dist/numeric-encoder.d.cts',
  'dist/numeric-encoder.d.ts',
  'dist/numeric.d.cts',
  'dist/numeric.d.ts',
  'dist/options.d.cts',
  'dist/options.d.ts',
  'dist/owned.d.cts',
  'dist/owned.d.ts',
  'dist/read.d.cts',
  'dist/read.d.ts',
  'dist/series.d.cts',
  'dist/series.d.ts',
  'dist/stream-decode.d.cts',
  'dist/stream-decode.d.ts',
  'dist/stream-format.d.cts',
  'dist/stream-format.d.ts',
  'dist/stream-read.d.cts',
  'dist/stream-read.d.ts',
  'dist/text-encoder.d.cts',
  'dist/text-encoder.d.ts',
  'dist/text.d.cts',
  'dist/text.d.ts',
  'dist/worker/pool-node.js',
  'dist/worker/pool.cjs',
  'dist/worker/pool.d.cts',
  'dist/worker/pool.d.ts',
  'dist/worker/pool.js',
  'dist/worker/thread-node.js',
  'dist/worker/thread.js',
  'dist/workerd.d.ts',
  'dist/workerd.js',
  'package.json',
  'wasm/mebo_core_rest.wasm',
  'wasm/mebo_core_simd.wasm',
  'wasm/mebo_decode_scalar.wasm',
  'wasm/mebo_decode_simd.wasm',
  'wasm/mebo_scalar.wasm',
  'wasm/mebo_simd.wasm',
  'wasm/mebo_zstd.wasm',
  'worker/package.json',
];

// ---------------------------------------------------------------- processes

/** The one JSON line a consumer prints last. */
function lastJson<T>(out: Output): T {
  const lines = out.stdout.trim().split('\n');
  try {
    return JSON.parse(lines[lines.length - 1]!) as T;
  } catch {
    throw new Error(`no JSON on the last line of stdout:\n${out.stdout.slice(-2000)}\n--- stderr\n${out.stderr.slice(-2000)}`);
  }
}

/** At most `limit` of the functions run at once. */
function limiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

// ---------------------------------------------------------------- the sample

const SAMPLE = sampleCases();
/** The sample as command-line arguments `name=path`. */
const SAMPLE_ARGS = SAMPLE.map((c) => `${c.name}=${join(VECTORS, c.file)}`);

type Results = Record<string, DecodedDocument | { error: unknown }>;
interface Info {
  variant: string;
  simdCheck: string;
}

/** Per-metric columns (the CommonJS consumer's pool results) against the case's input: timestamps, value bits or texts. */
function expectColumnsMatchInput(metrics: RawMetric[], c: Case): void {
  const input = rawInput(c);
  expect(metrics.length, c.name).toBe(input.metrics.length);
  const decoded = new Map(metrics.map((m) => [m.id.toLowerCase(), m]));
  for (const m of input.metrics) {
    const d = decoded.get(m.id.toLowerCase());
    const at = `${c.name} metric ${m.name ?? m.id}`;
    expect(d, `${at} is decoded`).toBeDefined();
    expect(d!.timestamps, `${at} timestamps`).toEqual(m.timestamps);
    if (c.kind === 'numeric') expect(d!.values, `${at} value bits`).toEqual(m.values!.map((v) => v.toLowerCase()));
    else expect(d!.texts, `${at} texts`).toEqual(m.texts);
  }
}

/** A `mebo/worker` pool's results (pool-document.js): every sample blob, its `kind` right, its columns bit for bit. */
function expectPoolDecoded(results: Record<string, { kind: string; metrics: RawMetric[] } | { error: unknown }>): void {
  expect(Object.keys(results).sort()).toEqual(SAMPLE.map((c) => c.name).sort());
  for (const c of SAMPLE) {
    const got = results[c.name]!;
    expect('error' in got ? got.error : undefined, c.name).toBeUndefined();
    expect((got as { kind: string }).kind, c.name).toBe(c.kind);
    expectColumnsMatchInput((got as { metrics: RawMetric[] }).metrics, c);
  }
}

/** `bytes` as kB for the report. */
const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

// ---------------------------------------------------------------- pack and install

let root = '';
let tarball = '';
let packed: Packed | undefined;
const prepared = new Map<string, Promise<string>>();
const versions = new Map<string, Record<string, string>>();

/** Where each consumer's sources go, relative to its folder: decode-document.js is copied there. */
const SHARED_INTO: Record<string, string> = {
  'node-esm': 'decode-document.js',
  'vitest-jsdom': 'decode-document.js',
  parcel: 'src/decode-document.js',
  rollup: 'src/decode-document.js',
  next: 'app/decode-document.js',
  'node-cjs': 'decode-document.mjs',
  deno: 'decode-document.js',
  bun: 'decode-document.js',
  workerd: 'src/decode-document.js',
  esbuild: 'src/decode-document.js',
  vite: 'src/decode-document.js',
  'vite-decode': 'src/decode-document.js',
  webpack: 'src/decode-document.js',
  angular: 'src/app/decode-document.js',
};

/** Copy a consumer into the temporary directory, install the tarball and its tools, and build it as its scripts say. */
/** Seconds each consumer's install and build took (printed at the end: what the side-by-side runs cost). */
const prepareSeconds = new Map<string, { install: number; build: number }>();

async function prepare(name: string): Promise<string> {
  const started = performance.now();
  const dir = join(root, name);
  cpSync(join(CONSUMERS, name), dir, { recursive: true });
  cpSync(join(PACKAGE_ROOT, 'test/hosts/decode-document.js'), join(dir, SHARED_INTO[name]!));
  // The pool's helper beside it.
  cpSync(join(CONSUMERS, 'pool-document.js'), join(dir, SHARED_INTO[name]!.replace('decode-document', 'pool-document')));
  if (name === 'vite' || name === 'vite-decode' || name === 'next' || name === 'angular') {
    // The dev server (Next.js: its server; Angular: ng serve) serves public/ as the static test server serves the sample to the others.
    mkdirSync(join(dir, 'public/vectors'), { recursive: true });
    for (const c of SAMPLE) cpSync(join(VECTORS, c.file), join(dir, 'public/vectors', c.file.split('/').pop()!));
    writeFileSync(join(dir, 'public/sample.json'), JSON.stringify(SAMPLE.map((c) => ({ name: c.name, url: `/vectors/${c.file.split('/').pop()}` }))));
  }
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  versions.set(name, { ...pkg.dependencies, ...pkg.devDependencies });
  await run('npm', ['install', '--no-package-lock', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], { cwd: dir });
  // The package came from the tarball: a copy in node_modules, not a link to the workspace.
  const installed = join(dir, 'node_modules/mebo');
  if (lstatSync(installed).isSymbolicLink()) throw new Error(`${installed} is a link, not the installed tarball`);
  const built = performance.now();
  if (name === 'next') {
    // Both bundlers from one install, each deployed as `output: 'standalone'` is: the server folder with
    // .next/static and public/ copied in, moved away from the project (no node_modules/mebo beside it).
    for (const [script, out] of [
      ['build:webpack', 'standalone-webpack'],
      ['build', 'standalone-turbopack'],
    ] as const) {
      await run('npm', ['run', script, '--silent'], { cwd: dir, env: NEXT_ENV, timeout: 10 * MINUTES });
      cpSync(join(dir, '.next/standalone'), join(root, `next-${out}`), { recursive: true });
      cpSync(join(dir, '.next/static'), join(root, `next-${out}`, '.next/static'), { recursive: true });
      cpSync(join(dir, 'public'), join(root, `next-${out}`, 'public'), { recursive: true });
      wasmEmitted.set(`next ${out}`, wasmSizes(join(dir, '.next'))); // client and server copies
      rmSync(join(dir, '.next'), { recursive: true, force: true });
    }
  } else if (pkg.scripts?.build) await run('npm', ['run', 'build', '--silent'], { cwd: dir });
  prepareSeconds.set(name, { install: Math.round((built - started) / 1000), build: Math.round((performance.now() - built) / 1000) });
  return dir;
}

const NEXT_ENV = { ...childEnv, NEXT_TELEMETRY_DISABLED: '1' };

/** Every .wasm under `dir` (recursively) as `path: bytes`, for the report. */
const wasmEmitted = new Map<string, Record<string, number>>();
function wasmSizes(dir: string): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) if (file.endsWith('.wasm')) sizes[file] = statSync(join(dir, file)).size;
  return sizes;
}

/**
 * Installs and builds at once. Installs mostly wait on the network and the
 * builds take turns on CI's two cores; four keeps both busy without one
 * build starving the others.
 */
const CONCURRENT = 4;
const limit = limiter(CONCURRENT);
/** The slowest first (Next.js builds twice), so that they do not finish last. */
const ORDER = ['next', 'angular', 'parcel', 'workerd', 'webpack', 'vite', 'vite-decode', 'vitest-jsdom', 'rollup', 'deno', 'bun', 'esbuild', 'node-cjs', 'node-esm'];

/** A prepared consumer's directory (its install and build failing fail the consumer's test). */
function consumer(name: string): Promise<string> {
  const promise = prepared.get(name);
  if (!promise) throw new Error(`no consumer ${name}${process.env.MEBO_CONSUMERS ? ` (MEBO_CONSUMERS=${process.env.MEBO_CONSUMERS} leaves it out)` : ''}`);
  return promise;
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'mebo-consumers-')));
  if (root.startsWith(REPO_ROOT + sep)) throw new Error(`${root} is inside the repository`);
  if (KEEP) console.log(`tarball consumers in ${root}`);
  mkdirSync(join(root, 'pack'));
  packed = await packSdk(join(root, 'pack'));
  tarball = packed.tarball;
  const only = process.env.MEBO_CONSUMERS?.split(',');
  for (const name of ORDER.filter((n) => !only || only.includes(n))) {
    const promise = limit(() => prepare(name));
    promise.catch(() => {}); // reported by the consumer's own test
    prepared.set(name, promise);
  }
}, 3 * MINUTES);

let browser: Browser | undefined;
const servers: Server[] = [];
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await browser?.close();
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  // Let installs still running end before their directory goes.
  await Promise.allSettled(prepared.values());
  console.log(`[prepare] seconds (install + build), ${CONCURRENT} at a time: ${[...prepareSeconds].map(([name, t]) => `${name} ${t.install}+${t.build}`).join(', ')}`);
  if (root && !KEEP) rmSync(root, { recursive: true, force: true });
}, 5 * MINUTES);

// ---------------------------------------------------------------- the tarball

it('the tarball holds exactly the files a user needs, the licenses among them', async () => {
  const files = packed!.files.map((f) => f.path).sort();
  expect(files).toEqual([...TARBALL_FILES].sort());
  const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
  console.log(`[tarball] ${files.length} files, ${kb(packed!.size)} packed, ${kb(packed!.unpackedSize)} unpacked`);
  // The installed package.json says so, and ships both license texts.
  const dir = await consumer('node-esm');
  const installed = join(dir, 'node_modules/mebo');
  const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { license: string; devDependencies?: unknown };
  expect(pkg.license).toBe('MIT AND BSD-3-Clause');
  expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/m);
  expect(readFileSync(join(installed, 'LICENSE-klauspost'), 'utf8')).toContain('Klaus Post');
  // npm publish --dry-run has nothing to correct or warn about (but that no one is logged in here). A blank
  // user config: this machine's own npmrc is not the package's business.
  writeFileSync(join(root, 'npmrc'), '');
  const publish = await run('npm', ['publish', '--dry-run', '--json'], { cwd: PACKAGE_ROOT, env: { ...childEnv, npm_config_userconfig: join(root, 'npmrc') } });
  const warnings = publish.stderr.split('\n').filter((line) => /^npm (warn|error)/i.test(line) && !/requires you to be logged in .*\(dry-run\)/.test(line));
  expect(warnings).toEqual([]);
  expect((JSON.parse(publish.stdout) as Record<string, { files: { path: string }[] }>).mebo!.files.map((f) => f.path).sort()).toEqual(files);
  // stripInternal: no declaration the package marks internal reaches a user.
  for (const file of readdirSync(join(installed, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.d\.c?ts$/.test(f))) {
    expect(readFileSync(join(installed, 'dist', file), 'utf8'), file).not.toContain('@internal');
  }
}, 5 * MINUTES);

// ---------------------------------------------------------------- runtimes

/** `mebo` and `mebo/decode` resolved inside the consumer's node_modules, the simd build's self-check passed, the sample decoded by both. */
function expectBothEntries(dir: string, out: { resolved: Record<string, string>; info: Info; decodeInfo: Info; mebo: Results; decode: Results }): void {
  expect(out.resolved).toEqual({
    mebo: pathToFileURL(join(dir, 'node_modules/mebo/dist/index-node.js')).href,
    decode: pathToFileURL(join(dir, 'node_modules/mebo/dist/decode-node.js')).href,
  });
  expect(out.info).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expect(out.decodeInfo).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expectSampleDecoded(out.mebo);
  expectSampleDecoded(out.decode);
}

it('Node ESM: import from mebo and mebo/decode, init() from disk; npx mebo decodes and encodes', async () => {
  const dir = await consumer('node-esm');
  const out = lastJson<{ node: string; resolved: Record<string, string>; info: Info; decodeInfo: Info; mebo: Results; decode: Results }>(
    await run(process.execPath, ['main.js', ...SAMPLE_ARGS], { cwd: dir }),
  );
  expectBothEntries(dir, out);

  // The CLI from the installed package's bin link.
  const exact = manifest().find((c) => c.name === 'num-gauge1-delta-zstd-gorilla-s2-notags-le-v1')!;
  const decoded = await run('npx', ['--no', 'mebo', 'decode', '--exact', join(VECTORS, exact.file)], { cwd: dir });
  expectMatchesInput(JSON.parse(decoded.stdout) as DecodedDocument, exact);
  const again = manifest().find((c) => c.name === 'num-special-deltapacked-none-chimp-none-notags-le-v2')!;
  const blob = join(dir, 'again.mebo');
  await run('npx', ['--no', 'mebo', 'encode', join(VECTORS, again.options.input), '--config', 'deltapacked-none-chimp-none', '--layout', 'v2', '-o', blob], { cwd: dir });
  expect(Buffer.compare(readFileSync(blob), readFileSync(join(VECTORS, again.file)))).toBe(0);
  console.log(
    `[node-esm] Node ${out.node}: mebo and mebo/decode from ${dir}/node_modules decoded ${SAMPLE.length} vectors bit for bit (simd build, self-check passed); ` +
      `npx mebo decode --exact matched ${exact.name}; npx mebo encode reproduced ${again.name} byte for byte`,
  );
});

it('Node CommonJS: require() of mebo, mebo/decode, mebo/worker and mebo/arrow without require(esm)', async () => {
  const dir = await consumer('node-cjs');
  const out = lastJson<{
    node: string;
    requireModule: boolean;
    resolved: Record<string, string>;
    info: Info;
    decodeInfo: Info;
    mebo: Results;
    decode: Results;
    pool: Record<string, RawMetric[]>;
    arrow: Record<string, RawMetric[]>;
    refused: { isMeboError: boolean; code: string };
  }>(await run(process.execPath, ['--no-experimental-require-module', 'main.cjs', ...SAMPLE_ARGS], { cwd: dir }));
  // require(esm) was off: only a CommonJS build can have been loaded.
  expect(out.requireModule).toBe(false);
  expect(out.resolved).toEqual({
    mebo: join(dir, 'node_modules/mebo/dist/index.cjs'),
    decode: join(dir, 'node_modules/mebo/dist/decode.cjs'),
    worker: join(dir, 'node_modules/mebo/dist/worker/pool.cjs'),
    arrow: join(dir, 'node_modules/mebo/dist/arrow.cjs'),
  });
  expect(out.info).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expect(out.decodeInfo).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expectSampleDecoded(out.mebo);
  expectSampleDecoded(out.decode);
  expect(Object.keys(out.pool).sort()).toEqual(SAMPLE.map((c) => c.name).sort());
  for (const c of SAMPLE) expectColumnsMatchInput(out.pool[c.name]!, c);
  expect(Object.keys(out.arrow).sort()).toEqual(SAMPLE.map((c) => c.name).sort());
  for (const c of SAMPLE) expectColumnsMatchInput(out.arrow[c.name]!, c);
  expect(out.refused).toEqual({ isMeboError: true, code: 'TRUNCATED' });
  console.log(
    `[node-cjs] Node ${out.node} with require(esm) off: require('mebo'), 'mebo/decode', 'mebo/worker' and 'mebo/arrow' resolved to dist/*.cjs and decoded ${SAMPLE.length} vectors ` +
      `bit for bit (main thread with both entries, a pool of 2 worker threads, toArrow tables over apache-arrow ${versions.get('node-cjs')!['apache-arrow']}); a bad blob threw MeboError TRUNCATED`,
  );
});

it('Deno: npm:mebo from node_modules type-checks (deno check) and decodes (deno run)', async () => {
  const dir = await consumer('deno');
  const deno = join(dir, 'node_modules/.bin/deno');
  const env = { ...childEnv, DENO_DIR: join(root, 'deno-dir'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
  await run(deno, ['check', '--no-lock', 'main.ts'], { cwd: dir, env });
  const out = lastJson<{ deno: string; resolved: Record<string, string>; info: Info; decodeInfo: Info; firstPoints: number; mebo: Results; decode: Results }>(
    await run(deno, ['run', '--no-lock', '--no-remote', '--no-prompt', `--allow-read=${dir},${VECTORS}`, 'main.ts', ...SAMPLE_ARGS], { cwd: dir, env }),
  );
  expect(out.deno).toBe(versions.get('deno')!.deno);
  expect(out.resolved).toEqual({
    mebo: pathToFileURL(join(dir, 'node_modules/mebo/dist/index-node.js')).href,
    decode: pathToFileURL(join(dir, 'node_modules/mebo/dist/decode-node.js')).href,
  });
  expect(out.info).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expect(out.decodeInfo).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expect(out.firstPoints).toBe(rawInput(SAMPLE[0]!).metrics.reduce((n, m) => n + m.timestamps.length, 0));
  expectSampleDecoded(out.mebo);
  expectSampleDecoded(out.decode);
  console.log(`[deno] Deno ${out.deno}: deno check passed; npm:mebo and npm:mebo/decode from node_modules decoded ${SAMPLE.length} vectors bit for bit (simd build, self-check passed)`);
});

it('Bun: TypeScript importing mebo and mebo/decode decodes', async () => {
  const dir = await consumer('bun');
  const out = lastJson<{ bun: string; resolved: Record<string, string>; info: Info; decodeInfo: Info; mebo: Results; decode: Results }>(
    await run(join(dir, 'node_modules/.bin/bun'), ['main.ts', ...SAMPLE_ARGS], { cwd: dir }),
  );
  expect(out.bun).toBe(versions.get('bun')!.bun);
  expectBothEntries(dir, out);
  console.log(`[bun] Bun ${out.bun}: mebo and mebo/decode decoded ${SAMPLE.length} vectors bit for bit (simd build, self-check passed)`);
});

it('workerd: a Worker that only calls init() (or initSync()) gets the wasm as a module through the workerd condition', async () => {
  const dir = await consumer('workerd');
  // The bundle kept each .wasm an import of its own, beside it, as wrangler would upload them.
  const wasm = readdirSync(join(dir, 'dist')).filter((f) => f.endsWith('.wasm')).sort();
  expect(wasm).toEqual([expect.stringMatching(/^mebo_decode_simd-\w+\.wasm$/), expect.stringMatching(/^mebo_simd-\w+\.wasm$/)]);
  const script = readFileSync(join(dir, 'dist/worker.js'), 'utf8');
  for (const file of wasm) expect(script).toMatch(new RegExp(`^import \\w+ from "\\./${file.replace('.', '\\.')}";$`, 'm'));
  const out = lastJson<{ modules: string[]; info: Info; decodeInfo: Info; mebo: Results; decode: Results }>(
    await run(process.execPath, ['run.mjs', ...SAMPLE_ARGS], { cwd: dir }),
  );
  expect(out.modules).toEqual(['ESModule dist/worker.js', ...wasm.map((f) => `CompiledWasm dist/${f}`)]);
  expect(out.info).toEqual({ variant: 'simd', simdCheck: 'not run' });
  expect(out.decodeInfo).toEqual({ variant: 'simd', simdCheck: 'not run' });
  expectSampleDecoded(out.mebo);
  expectSampleDecoded(out.decode);
  console.log(
    `[workerd] miniflare ${versions.get('workerd')!.miniflare}, bundled by esbuild ${versions.get('workerd')!.esbuild} as wrangler does: ` +
      `init() and initSync() with no argument used the imported simd modules of mebo and mebo/decode; ${SAMPLE.length} vectors decoded bit for bit by each`,
  );
});

// ---------------------------------------------------------------- browsers

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
};

/** A 127.0.0.1 server of `dir`'s files, plus /sample.json and the sample's blobs under /vectors/. */
async function serveStatic(dir: string): Promise<string> {
  const blobs = new Map(SAMPLE.map((c) => [`/vectors/${c.file.split('/').pop()}`, join(VECTORS, c.file)]));
  const list = JSON.stringify(SAMPLE.map((c) => ({ name: c.name, url: `/vectors/${c.file.split('/').pop()}` })));
  const server = createServer((request, response) => {
    let path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    if (path.endsWith('/')) path += 'index.html';
    const file = blobs.get(path) ?? normalize(join(dir, path));
    if (path === '/sample.json') return response.writeHead(200, { 'content-type': TYPES['.json']! }).end(list);
    if (request.method !== 'GET' || !(blobs.has(path) || file.startsWith(dir + sep)) || !existsSync(file) || !statSync(file).isFile()) {
      return response.writeHead(404).end();
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

interface PageResult {
  info: Info;
  variant: string;
  simd: boolean;
  results: Results;
  pool: Record<string, { kind: string; metrics: RawMetric[] } | { error: unknown }>;
}

async function inChromium(url: string): Promise<{ ok: PageResult; loaded: Loaded[] }> {
  browser ??= await launchChromium();
  return pageOutcome<PageResult>(browser, url);
}

/** The .wasm responses a page received, by path. */
function wasmLoaded(loaded: Loaded[]): Loaded[] {
  return loaded.filter((l) => new URL(l.url).pathname.endsWith('.wasm')).map((l) => ({ ...l, url: new URL(l.url).pathname }));
}

it('esbuild: a browser bundle with the .wasm through the file loader decodes in Chromium', async () => {
  const dir = await consumer('esbuild');
  const emitted = readdirSync(join(dir, 'dist')).sort();
  expect(emitted).toEqual(['main.js', expect.stringMatching(/^mebo_scalar-\w+\.wasm$/), expect.stringMatching(/^mebo_simd-\w+\.wasm$/)]);
  const { ok, loaded } = await inChromium(`${await serveStatic(dir)}/index.html`);
  expect(wasmLoaded(loaded)).toEqual([{ url: `/dist/${emitted[2]}`, status: 200, type: 'application/wasm' }]);
  expect(ok.info).toEqual({ variant: 'simd', simdCheck: 'not run' });
  expectSampleDecoded(ok.results);
  console.log(`[esbuild] esbuild ${versions.get('esbuild')!.esbuild} bundle in Chromium: fetched /dist/${emitted[2]}, decoded ${SAMPLE.length} vectors bit for bit`);
});

it('Vite: a production build with no configuration decodes in Chromium', async () => {
  const dir = await consumer('vite');
  const assets = readdirSync(join(dir, 'dist/assets')).filter((f) => f.endsWith('.wasm')).sort();
  expect(assets).toEqual([expect.stringMatching(/^mebo_scalar-[\w-]+\.wasm$/), expect.stringMatching(/^mebo_simd-[\w-]+\.wasm$/)]);
  // The pool's worker was built (one script), and no raw copy of a thread module was emitted.
  const scripts = readdirSync(join(dir, 'dist/assets')).filter((f) => f.endsWith('.js'));
  expect(scripts.filter((f) => /thread/.test(f))).toEqual([expect.stringMatching(/^thread-[\w-]+\.js$/)]);
  expect(readFileSync(join(dir, 'dist/assets', scripts.find((f) => f.startsWith('thread-'))!), 'utf8')).not.toMatch(/\bimport\s*[{*\w]|worker_threads/);
  const { ok, loaded } = await inChromium(`${await serveStatic(join(dir, 'dist'))}/`);
  expect(wasmLoaded(loaded)).toEqual([{ url: `/assets/${assets[1]}`, status: 200, type: 'application/wasm' }]);
  expect(ok.info).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expectSampleDecoded(ok.results);
  expectPoolDecoded(ok.pool);
  const sizes = wasmSizes(join(dir, 'dist'));
  console.log(
    `[vite] vite ${versions.get('vite')!.vite} build (no config) in Chromium: init() fetched /assets/${assets[1]}, decoded ${SAMPLE.length} vectors bit for bit, ` +
      `so did a mebo/worker pool of 2 (worker built as ${scripts.find((f) => f.startsWith('thread-'))}); wasm emitted: ${Object.entries(sizes).map(([f, n]) => `${f} ${kB(n)}`).join(', ')}`,
  );
});

/** Points in a sample case's input, counted from the reference's input file. */
function pointsOf(name: string): number {
  return rawInput(SAMPLE.find((c) => c.name === name)!).metrics.reduce((sum, m) => sum + m.timestamps.length, 0);
}

it("Vite: a vanilla-ts page on mebo/decode fetches the light core, then the core's rest and the zstd part only for a zstd blob, and decodes exactly", async () => {
  const dir = await consumer('vite-decode');
  const dist = join(dir, 'dist');
  const { ok } = await inChromium(`${await serveStatic(dist)}/`);
  const page = ok as unknown as PageResult & { steps: { init: string[]; plain: string[]; all: string[] }; plainPoints: number; freed: string; textPoints: number };
  const wasm = (paths: string[]) => paths.filter((p) => p.endsWith('.wasm')).map((p) => p.replace(/-[\w-]+\.wasm$/, '.wasm'));
  // init() fetched the light core alone; the plain blob needed nothing more; the zstd blob fetched the core's rest and the zstd part.
  expect(wasm(page.steps.init)).toEqual(['/assets/mebo_core_simd.wasm']);
  expect(page.steps.plain).toEqual(page.steps.init);
  expect(wasm(page.steps.all)).toEqual(['/assets/mebo_core_simd.wasm', '/assets/mebo_core_rest.wasm', '/assets/mebo_zstd.wasm']);
  expect(page.plainPoints).toBe(pointsOf('num-gauge1-deltapacked-lz4-chimp-lz4-notags-le-v1'));
  expect(page.freed).toBe('this NumericBlob was freed');
  expect(page.textPoints).toBe(pointsOf('txt-status1-tagged-delta-zstd-tags-be'));
  expect(ok.info).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expectSampleDecoded(ok.results);
  // What a first blob costs: the scripts and modules fetched, gzipped as a server would send them.
  const gzipped = (paths: string[]) => paths.reduce((sum, p) => sum + gzipSync(readFileSync(join(dist, p)), { level: 9 }).length, 0);
  const [firstBlob, everyPart] = [gzipped(page.steps.plain), gzipped(page.steps.all)];
  const scripts = gzipped(page.steps.plain.filter((p) => p.endsWith('.js')));
  expect(firstBlob).toBeLessThanOrEqual(FIRST_LOAD_BUDGET.viteFirstBlob);
  expect(everyPart).toBeLessThanOrEqual(FIRST_LOAD_BUDGET.viteEveryPart);
  console.log(
    `[vite-decode] vite ${versions.get('vite-decode')!.vite} + typescript ${versions.get('vite-decode')!.typescript} (create-vite vanilla-ts) in Chromium: ` +
      `first numeric blob after ${kB(firstBlob)} gzipped (${kB(scripts)} of it JavaScript), a zstd and a text blob after ${kB(everyPart)}; decoded ${SAMPLE.length} vectors bit for bit`,
  );
});

it('Vite: the dev server, mebo pre-bundled by optimizeDeps, decodes in Chromium', async () => {
  const dir = await consumer('vite');
  const child = spawn(process.execPath, [join(dir, 'node_modules/vite/bin/vite.js'), '--host', '127.0.0.1', '--port', '0', '--clearScreen', 'false'], {
    cwd: dir,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  try {
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`vite did not start:\n${output}`)), MINUTES);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const found = /Local:\s+(http:\/\/127\.0\.0\.1:\d+\/)/.exec(output.replace(/\x1b\[[0-9;]*m/g, ''));
        if (found) {
          clearTimeout(timer);
          resolve(found[1]!);
        }
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.on('exit', (code) => reject(new Error(`vite exited with ${code}:\n${output}`)));
    });
    const { ok, loaded } = await inChromium(url);
    // The dependency optimizer pre-bundled mebo, and the wasm URL survived it.
    const optimized = JSON.parse(readFileSync(join(dir, 'node_modules/.vite/deps/_metadata.json'), 'utf8')) as { optimized: Record<string, unknown> };
    expect(Object.keys(optimized.optimized)).toContain('mebo');
    const wasm = wasmLoaded(loaded);
    expect(wasm.map((w) => [w.url.split('?')[0], w.status, w.type])).toEqual([['/node_modules/mebo/wasm/mebo_simd.wasm', 200, 'application/wasm']]);
    expect(ok.info).toEqual({ variant: 'simd', simdCheck: 'passed' });
    expectSampleDecoded(ok.results);
    console.log(`[vite dev] vite ${versions.get('vite')!.vite} dev server, mebo pre-bundled by optimizeDeps: init() fetched ${wasm[0]!.url}, decoded ${SAMPLE.length} vectors bit for bit`);
  } finally {
    child.kill('SIGTERM');
  }
});

it('webpack 5: a production build with no configuration decodes in Chromium', async () => {
  const dir = await consumer('webpack');
  const emitted = readdirSync(join(dir, 'dist'));
  // Both builds, the app, and the pool's worker as a chunk of its own (hashed names: no order to rely on).
  const kinds = emitted.map((f) => (f === 'main.js' ? 'app' : /^\d+\.js$/.test(f) ? 'worker chunk' : /^\w+\.wasm$/.test(f) ? 'wasm' : f)).sort();
  expect(kinds).toEqual(['app', 'wasm', 'wasm', 'worker chunk']);
  const { ok, loaded } = await inChromium(`${await serveStatic(dir)}/index.html`);
  const wasm = wasmLoaded(loaded);
  expect(wasm).toEqual([{ url: expect.stringMatching(/^\/dist\/\w+\.wasm$/), status: 200, type: 'application/wasm' }]);
  // The one fetched is the simd build, byte for byte.
  expect(Buffer.compare(readFileSync(join(dir, wasm[0]!.url)), readFileSync(join(PACKAGE_ROOT, 'wasm/mebo_simd.wasm')))).toBe(0);
  expect(ok.info).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expectSampleDecoded(ok.results);
  expectPoolDecoded(ok.pool);
  const tools = versions.get('webpack')!;
  const sizes = wasmSizes(join(dir, 'dist'));
  console.log(
    `[webpack] webpack ${tools.webpack} (webpack-cli ${tools['webpack-cli']}) production build in Chromium: init() fetched ${wasm[0]!.url} (the simd build), decoded ${SAMPLE.length} vectors bit for bit, ` +
      `so did a mebo/worker pool of 2; wasm emitted: ${Object.entries(sizes).map(([f, n]) => `${f} ${kB(n)}`).join(', ')}`,
  );
});

it('Parcel 2, default setup: the module field, mebo/worker and the .wasm decode in Chromium', async () => {
  const dir = await consumer('parcel');
  const sizes = wasmSizes(join(dir, 'dist'));
  expect(Object.keys(sizes)).toHaveLength(2);
  const { ok, loaded } = await inChromium(`${await serveStatic(join(dir, 'dist'))}/index.html`);
  const wasm = wasmLoaded(loaded);
  expect(wasm).toHaveLength(1);
  expect(Buffer.compare(readFileSync(join(dir, 'dist', wasm[0]!.url)), readFileSync(join(PACKAGE_ROOT, 'wasm/mebo_simd.wasm')))).toBe(0);
  expect(ok.info).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expectSampleDecoded(ok.results);
  expectPoolDecoded(ok.pool);
  console.log(
    `[parcel] parcel ${versions.get('parcel')!.parcel} build (no config) in Chromium: init() fetched ${wasm[0]!.url} (the simd build), decoded ${SAMPLE.length} vectors bit for bit, ` +
      `so did a mebo/worker pool of 2; wasm emitted: ${Object.entries(sizes).map(([f, n]) => `${f} ${kB(n)}`).join(', ')}`,
  );
});

it('Rollup with node-resolve and import-meta-assets: the .wasm and mebo/worker decode in Chromium', async () => {
  const dir = await consumer('rollup');
  const sizes = wasmSizes(join(dir, 'dist'));
  expect(Object.keys(sizes)).toHaveLength(2);
  const { ok, loaded } = await inChromium(`${await serveStatic(dir)}/index.html`);
  const wasm = wasmLoaded(loaded);
  expect(wasm).toHaveLength(1);
  expect(Buffer.compare(readFileSync(join(dir, wasm[0]!.url)), readFileSync(join(PACKAGE_ROOT, 'wasm/mebo_simd.wasm')))).toBe(0);
  expect(ok.info).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expectSampleDecoded(ok.results);
  expectPoolDecoded(ok.pool);
  const tools = versions.get('rollup')!;
  console.log(
    `[rollup] rollup ${tools.rollup} with @rollup/plugin-node-resolve ${tools['@rollup/plugin-node-resolve']} and @web/rollup-plugin-import-meta-assets ${tools['@web/rollup-plugin-import-meta-assets']} in Chromium: ` +
      `init() fetched ${wasm[0]!.url}, decoded ${SAMPLE.length} vectors bit for bit, so did a mebo/worker pool of 2; wasm emitted: ${Object.entries(sizes).map(([f, n]) => `${f} ${kB(n)}`).join(', ')}`,
  );
});

it("Angular: an app from `ng new`, built by the application builder with the package's .wasm among its assets, decodes in Chromium", async () => {
  const dir = await consumer('angular');
  const out = join(dir, 'dist/mebo-consumer-angular/browser');
  // The builder emits no .wasm of its own: the ones there are what angular.json's assets line copied.
  const sizes = wasmSizes(out);
  expect(Object.keys(sizes).sort()).toEqual(TARBALL_FILES.filter((f) => f.endsWith('.wasm')).sort());
  const origin = await serveStatic(out);
  const { ok, loaded } = await inChromium(`${origin}/`);
  const wasm = wasmLoaded(loaded);
  // Where the package's new URL('../wasm/mebo_simd.wasm', import.meta.url) points from the bundle at the site's root.
  expect(wasm).toEqual([{ url: '/wasm/mebo_simd.wasm', status: 200, type: 'application/wasm' }]);
  expect(Buffer.compare(readFileSync(join(out, wasm[0]!.url)), readFileSync(join(PACKAGE_ROOT, 'wasm/mebo_simd.wasm')))).toBe(0);
  expect(ok.info).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expectSampleDecoded(ok.results);
  // The README's other form, the copy named from the page, in the same build.
  const fromPage = await inChromium(`${origin}/?from-page`);
  expect(wasmLoaded(fromPage.loaded)).toEqual([{ url: '/wasm/mebo_simd.wasm', status: 200, type: 'application/wasm' }]);
  expect(fromPage.ok.info).toEqual({ variant: 'simd', simdCheck: 'not run' });
  expectSampleDecoded(fromPage.ok.results);
  const tools = versions.get('angular')!;
  console.log(
    `[angular] @angular/build ${tools['@angular/build']} (ng build, production) in Chromium: init() fetched ${wasm[0]!.url}, decoded ${SAMPLE.length} vectors bit for bit; ` +
      `wasm copied by the assets line: ${Object.entries(sizes).map(([f, n]) => `${f} ${kB(n)}`).join(', ')}`,
  );
});

/** A server the test starts: Node running `args` in `cwd`, stopped by afterAll if the test does not; `output()` is what it printed so far. */
function serverProcess(args: string[], cwd: string, env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

it('Angular: under `ng serve` the copy named from the page decodes in Chromium', async () => {
  const dir = await consumer('angular');
  const port = await freePort();
  const { child, output } = serverProcess([join(dir, 'node_modules/@angular/cli/bin/ng.js'), 'serve', '--host', '127.0.0.1', '--port', String(port)], dir, {
    ...childEnv,
    NG_CLI_ANALYTICS: 'false',
  });
  try {
    const origin = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${origin}/sample.json`)).ok, output);
    const { ok, loaded } = await inChromium(`${origin}/?from-page`);
    // The dev server serves the assets line's copies where the page names them.
    expect(wasmLoaded(loaded)).toEqual([{ url: '/wasm/mebo_simd.wasm', status: 200, type: 'application/wasm' }]);
    expect(ok.info).toEqual({ variant: 'simd', simdCheck: 'not run' });
    expectSampleDecoded(ok.results);
    console.log(`[angular serve] @angular/build ${versions.get('angular')!['@angular/build']} dev server in Chromium: init({ wasm }) fetched /wasm/mebo_simd.wasm, decoded ${SAMPLE.length} vectors bit for bit`);
  } finally {
    child.kill('SIGTERM');
  }
});

for (const bundler of ['webpack', 'turbopack'] as const) {
  it(`Next.js (${bundler}, output: 'standalone'): a client page with a pool in Chromium and a route handler decode`, async () => {
    await consumer('next');
    const dir = join(root, `next-standalone-${bundler}`);
    const port = await freePort();
    const { child, output } = serverProcess(['server.js'], dir, { ...NEXT_ENV, PORT: String(port), HOSTNAME: '127.0.0.1' });
    try {
      const origin = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await fetch(`${origin}/sample.json`)).ok, output);
      // The route handler: each blob posted, decoded on the server.
      const routed: Results = {};
      let info: Info | undefined;
      for (const c of SAMPLE) {
        const response = await fetch(`${origin}/api/decode`, { method: 'POST', body: readFileSync(join(VECTORS, c.file)) });
        const body = (await response.json()) as { info: Info; document: DecodedDocument } | { error: unknown };
        routed[c.name] = 'error' in body ? { error: body.error } : body.document;
        if ('info' in body) info = body.info;
      }
      expect(info).toEqual({ variant: 'simd', simdCheck: 'passed' });
      expectSampleDecoded(routed);
      const { ok, loaded } = await inChromium(`${origin}/`);
      const wasm = wasmLoaded(loaded);
      expect(wasm).toEqual([{ url: expect.stringMatching(/^\/_next\/static\/media\/mebo_simd\.[\w-]+\.wasm$/), status: 200, type: 'application/wasm' }]);
      expect(ok.info).toEqual({ variant: 'simd', simdCheck: 'passed' });
      expectSampleDecoded(ok.results);
      expectPoolDecoded(ok.pool);
      const sizes = wasmEmitted.get(`next standalone-${bundler}`)!;
      console.log(
        `[next ${bundler}] next ${versions.get('next')!.next} (${bundler}), standalone server: the route handler decoded ${SAMPLE.length} vectors bit for bit; ` +
          `in Chromium the page fetched ${wasm[0]!.url} and decoded them, so did a mebo/worker pool of 2; wasm emitted: ${Object.entries(sizes).map(([f, n]) => `${f} ${kB(n)}`).join(', ')}`,
      );
    } finally {
      child.kill('SIGTERM');
    }
  });
}

it('Vitest under jsdom: init() with no argument decodes', async () => {
  const dir = await consumer('vitest-jsdom');
  writeFileSync(join(dir, 'sample.json'), JSON.stringify(SAMPLE.map((c) => ({ name: c.name, path: join(VECTORS, c.file) }))));
  await run('npx', ['--no', 'vitest', 'run'], { cwd: dir });
  const out = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as { info: Info; userAgent: string; results: Results };
  expect(out.userAgent).toMatch(/jsdom/);
  expect(out.info).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expectSampleDecoded(out.results);
  console.log(`[vitest-jsdom] vitest ${versions.get('vitest-jsdom')!.vitest} with jsdom ${versions.get('vitest-jsdom')!.jsdom}: decoded ${SAMPLE.length} vectors bit for bit (no config)`);
});

it('Node: a program with a DecodePool exits by itself when idle, without terminate()', async () => {
  const dir = await consumer('node-esm');
  // A pool that kept the process alive would hit the timeout and fail the run.
  const started = Date.now();
  const out = lastJson<{ resolved: string; size: number; results: Record<string, { kind: string; metrics: RawMetric[] }> }>(
    await run(process.execPath, ['pool.js', ...SAMPLE_ARGS], { cwd: dir, timeout: MINUTES }),
  );
  expect(out.resolved).toBe(pathToFileURL(join(dir, 'node_modules/mebo/dist/worker/pool-node.js')).href);
  expect(out.size).toBe(2);
  expectPoolDecoded(out.results);
  console.log(`[node pool] a pool of 2 worker threads decoded ${SAMPLE.length} vectors bit for bit; the process exited by itself ${Date.now() - started} ms after it started`);
});

/** A free 127.0.0.1 port. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

/** Poll `ready` (bounded) until it is true. */
async function waitFor(ready: () => Promise<boolean>, output: () => string): Promise<void> {
  for (const deadline = Date.now() + MINUTES; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    try {
      if (await ready()) return;
    } catch {
      // not listening yet
    }
  }
  throw new Error(`the server did not start:\n${output()}`);
}
