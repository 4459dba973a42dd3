import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cacheKey, findWasmOpt, optimize } from './wasm-opt.mjs';

const dir = mkdtempSync(join(tmpdir(), 'mebo-wasm-opt-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// A stand-in wasm-opt: answers --version, and writes its input reversed to
// `-o`, counting its runs in a file beside it.
const fake = join(dir, 'fake-wasm-opt');
const runs = join(dir, 'runs');
writeFileSync(
  fake,
  `#!/usr/bin/env node
const fs = require('node:fs');
const args = process.argv.slice(2);
if (args[0] === '--version') { console.log('wasm-opt version 999 (fake)'); process.exit(0); }
fs.appendFileSync(${JSON.stringify(runs)}, args.join(' ') + '\\n');
const input = args[args.indexOf('-o') - 1];
fs.writeFileSync(args[args.indexOf('-o') + 1], Buffer.from(fs.readFileSync(input)).reverse());
`,
);
chmodSync(fake, 0o755);
const runCount = () => readFileSync(runs, 'utf8').trim().split('\n').length;

test('the first wasm-opt that answers is used', () => {
  assert.deepEqual(findWasmOpt([join(dir, 'missing'), fake]), { command: fake, version: 'wasm-opt version 999 (fake)' });
  assert.equal(findWasmOpt([join(dir, 'missing')]), undefined);
});

test('an input optimized before comes from the cache; a new one replaces the entry', async () => {
  const wasmOpt = findWasmOpt([fake]);
  const cacheDir = join(dir, 'cache');
  const out = join(dir, 'out.wasm');
  const run = (bytes, args = ['-O3']) => optimize({ label: 'simd', bytes: Buffer.from(bytes), out, wasmOpt, args, cacheDir });
  assert.equal(await run([1, 2, 3]), false);
  assert.deepEqual([...readFileSync(out)], [3, 2, 1]);
  assert.equal(runCount(), 1);
  // Same input and arguments: served, and wasm-opt not run.
  writeFileSync(out, 'stale');
  assert.equal(await run([1, 2, 3]), true);
  assert.deepEqual([...readFileSync(out)], [3, 2, 1]);
  assert.equal(runCount(), 1);
  // Other arguments or other bytes: run again; one entry per label.
  assert.equal(await run([1, 2, 3], ['-O3', '--enable-simd']), false);
  assert.equal(await run([4, 5]), false);
  assert.deepEqual([...readFileSync(out)], [5, 4]);
  assert.equal(runCount(), 3);
  assert.deepEqual(readdirSync(cacheDir), [`simd-${cacheKey(Buffer.from([4, 5]), wasmOpt.version, ['-O3'])}.wasm`]);
  // Another label keeps its own entry; no input file is left behind.
  await optimize({ label: 'scalar', bytes: Buffer.from([4, 5]), out, wasmOpt, args: ['-O3'], cacheDir });
  assert.equal(readdirSync(cacheDir).length, 2);
  assert.ok(!readdirSync(dir).some((f) => f.endsWith('.in.wasm')));
});

test('a failing wasm-opt rejects and caches nothing', async () => {
  const failing = join(dir, 'failing-wasm-opt');
  writeFileSync(failing, '#!/bin/sh\necho "[wasm-validator error] broken" >&2\nexit 1\n');
  chmodSync(failing, 0o755);
  const cacheDir = join(dir, 'cache-failing');
  await assert.rejects(optimize({ label: 'x', bytes: Buffer.from([1]), out: join(dir, 'x.wasm'), wasmOpt: { command: failing, version: 'v' }, args: [], cacheDir }), /exited with 1/);
  assert.throws(() => readdirSync(cacheDir), /ENOENT/);
});
