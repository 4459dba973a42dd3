// The `mebo` command, fuzzed (fast-check): arbitrary argument lists (the
// commands and flags it knows, their values, files that exist, are corrupt,
// are missing or are folders, and arbitrary words) with arbitrary stdin. Each
// run either succeeds (exit 0, no stack trace) or fails as the CLI promises:
// a non-zero exit and one line on stderr (a multi-blob `decode`: one line per
// failing blob, as documented), no stack trace. The command runs
// in a temporary folder holding its own copies, so whatever it writes stays
// there. Each call is a process of its own, so the count is modest; the long
// run is in fuzz/FINDINGS.md.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { isOneLineFailure, mebo } from './helpers/cli.js';
import { manifest, readBlob, VECTORS } from './helpers/vectors.js';
import { readFileSync } from 'node:fs';

const RUNS = Number(process.env.MEBO_CLI_FUZZ_RUNS ?? 120);

const cases = manifest();
const numeric = cases.find((c) => c.name === 'num-gauge1-tagged-raw-zstd-gorilla-s2-tags-le-v2')!;
const text = cases.find((c) => c.name === 'txt-status1-tagged-delta-zstd-tags-be')!;
const numericBytes = readBlob(numeric);
const inputJson = readFileSync(join(VECTORS, numeric.options.input), 'utf8');

const dir = mkdtempSync(join(tmpdir(), 'mebo-cli-fuzz-'));
writeFileSync(join(dir, 'a.mebo'), numericBytes);
writeFileSync(join(dir, 'b.mebo'), readBlob(text));
writeFileSync(join(dir, 'bad.mebo'), numericBytes.subarray(0, 60));
writeFileSync(join(dir, 'in.json'), inputJson);
writeFileSync(join(dir, 'broken.json'), inputJson.slice(0, 300));
mkdirSync(join(dir, 'sub'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KNOWN = [
  'inspect', 'decode', 'encode', 'help', '--json', '--csv', '--exact', '--help', '-h', '--version', '-o', '--output', '-', '--',
  '--config', '--layout', '--tags', '--no-tags', '--big-endian', '--no-big-endian', '--timestamp-encoding', '--value-encoding',
  '--timestamp-compression', '--value-compression', '--data-compression', '--config=delta-none-gorilla-zstd', '--layout=v2', '--bogus', '-x',
  'a.mebo', 'b.mebo', 'bad.mebo', 'missing.mebo', 'in.json', 'broken.json', 'sub', 'out.mebo', '.',
  'v1', 'v2', 'v2-shared', 'delta-none-gorilla-zstd', 'raw-none-raw-none', 'raw', 'delta', 'deltapacked', 'gorilla', 'chimp', 'alp', 'zstd', 's2', 'lz4', 'none',
];

/** Words a shell could pass: no NUL (an OS limit) and no path separators, so nothing lands outside the folder. */
const word = fc.string({ maxLength: 10, unit: 'binary' }).filter((s) => !s.includes('\0') && !s.includes('/') && !s.includes('\\'));
const argv = fc.array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...KNOWN) }, { weight: 1, arbitrary: word }), { maxLength: 7 });
const stdin = fc.oneof(
  fc.constant(undefined),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  fc.constantFrom(Buffer.from(numericBytes), Buffer.from(inputJson), Buffer.from(inputJson.slice(0, 200)), Buffer.from('{}'), Buffer.from('[1,2')),
);

let ran = 0;
const outcomes = { ok: 0, failed: 0 };

it(`${RUNS} arbitrary command lines and stdin: exit 0, or a non-zero exit with one line on stderr; never a stack trace`, () => {
  fc.assert(
    fc.property(argv, stdin, (args, input) => {
      const r = mebo(args, { input, cwd: dir });
      ran++;
      const trace = /\n\s+at .+:\d+:\d+/;
      expect(trace.test(r.stderr), `stack trace on stderr for ${JSON.stringify(args)}: ${r.stderr}`).toBe(false);
      if (r.status === 0) {
        outcomes.ok++;
        return;
      }
      outcomes.failed++;
      // The documented exception: `mebo decode` of several blobs reports each failing blob on a line of its own.
      const perBlob = r.status === 1 && r.stderr.endsWith('\n') && r.stderr.slice(0, -1).split('\n').every((line) => line.startsWith('mebo decode: '));
      expect(isOneLineFailure(r) || perBlob, `mebo ${JSON.stringify(args)} exited ${r.status} with stderr ${JSON.stringify(r.stderr)}`).toBe(true);
    }),
    { numRuns: RUNS },
  );
  console.log(`cli fuzz: ${ran} runs, ${outcomes.ok} succeeded, ${outcomes.failed} failed as promised`);
  expect(outcomes.ok).toBeGreaterThan(0);
  expect(outcomes.failed).toBeGreaterThan(0);
}, 300_000);
