// The `mebo` command, fuzzed (fast-check): arbitrary argument lists (the
// commands and flags it knows, their values, files that exist, are corrupt,
// are missing or are folders, and arbitrary words) with arbitrary stdin. Each
// run either succeeds (exit 0, no stack trace) or fails as the CLI promises:
// a non-zero exit and one line on stderr (a multi-blob `decode`: one line per
// failing blob, as documented), no stack trace. The command runs
// in a temporary folder holding its own copies, so whatever it writes stays
// there. Each call is a process of its own, so the count is modest; the long
// run is in fuzz/FINDINGS.md.

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

// CSV for `mebo encode`: a header `decode --csv` writes, then anything.
const CSV_RUNS = Number(process.env.MEBO_CLI_FUZZ_CSV_RUNS ?? 60);
const csvHeaders = fc.constantFrom('metric,timestamp,value\n', 'metric,timestamp,value,tag\r\n', 'file,metric,timestamp,value,tag\n', '\uFEFFmetric,timestamp,value\n');
/** Text that is mostly CSV: separators, quotes, line ends, numbers, words, a BOM. */
const csvish = fc
  .array(fc.constantFrom(',', '"', '""', '\n', '\r\n', '\r', 'a', 'b', '0', '1', '-', '.', 'e', '9223372036854775808', 'NaN', '-0', 'Infinity', '00000000000000ff', ' ', 'é', '\uFEFF'), { maxLength: 80 })
  .map((parts) => Buffer.from(parts.join('')));
/** Fields as they come: mostly right for their column, now and then wrong, quoted, empty or too long. */
const someField = (good: string[]) => fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...good) }, fc.constantFrom('', '"q,""x"""', '"t\nu"', 'x'.repeat(300), 'NaN', 'a'));
/** Rows under a header `decode --csv` writes (with or without file and tag), now and then a field too many or too few, then a tail of anything. */
const csvRows = fc
  .record({
    file: fc.boolean(),
    tag: fc.boolean(),
    rows: fc.array(
      fc.record({
        file: fc.oneof({ weight: 20, arbitrary: fc.constant('f.mebo') }, fc.constant('g.mebo')),
        metric: someField(['a', 'b', '00000000000000ff', 'cpu.user']),
        t: someField(['0', '15000000', '-9223372036854775808', '9223372036854775807']),
        value: someField(['1', '-0', '2.5', 'NaN', '-Infinity', '1e400']),
        tag: someField(['', 'dc=1']),
        eol: fc.constantFrom('\n', '\r\n'),
        shape: fc.nat(40),
      }),
      { maxLength: 8 },
    ),
  })
  .map(({ file, tag, rows }) => {
    const fields = (r: (typeof rows)[number]) => [...(file ? [r.file] : []), r.metric, r.t, r.value, ...(tag ? [r.tag] : [])];
    const line = (r: (typeof rows)[number]) => {
      const f = fields(r);
      return (r.shape === 0 ? [...f, 'x'] : r.shape === 1 ? f.slice(1) : f).join(',') + r.eol;
    };
    return `${file ? 'file,' : ''}metric,timestamp,value${tag ? ',tag' : ''}\n${rows.map(line).join('')}`;
  });
/** Mostly rows, else a header and then anything. */
const csvInput = fc.oneof(
  { weight: 3, arbitrary: csvRows.map((text) => Buffer.from(text)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(csvHeaders, fc.oneof(csvish, fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b))))
      .map(([header, body]) => Buffer.concat([Buffer.from(header), body])),
  },
);
const csvFlags = fc.subarray([['--kind', 'text'], ['--metric', 'id'], ['--layout', 'v2'], ['--tags'], ['--config', 'auto']]).map((f) => f.flat());

it(`${CSV_RUNS} CSV headers followed by arbitrary bytes: a blob, or one line with a code (and the line, for the input's own faults); never a stack trace`, () => {
  const out = join(dir, 'csv.mebo');
  const seen = { ok: 0, failed: 0 };
  fc.assert(
    fc.property(csvInput, csvFlags, (input, flags) => {
      rmSync(out, { force: true });
      const r = mebo(['encode', '-', '-o', out, ...flags], { input, cwd: dir });
      expect(/\n\s+at .+:\d+:\d+/.test(r.stderr), r.stderr).toBe(false);
      if (r.status === 0) {
        seen.ok++;
        expect(existsSync(out)).toBe(true);
        return;
      }
      seen.failed++;
      expect(isOneLineFailure(r), `${JSON.stringify(flags)} ${JSON.stringify(r.stderr)}`).toBe(true);
      // A flag of the other kind (--layout with --kind text) is the command line's fault: exit 2.
      if (r.status === 2) expect(r.stderr).toMatch(/ does not apply to (text|numeric) blobs \(see 'mebo encode --help'\)\n$/);
      else expect(r.stderr, `input ${JSON.stringify(input.toString())}`).toMatch(/^mebo encode: -: [A-Z][A-Z0-9_]*: line \d+: /);
      expect(existsSync(out), 'no output file after a failure').toBe(false);
    }),
    { numRuns: CSV_RUNS },
  );
  console.log(`cli csv fuzz: ${seen.ok} encoded, ${seen.failed} refused`);
  expect(seen.failed).toBeGreaterThan(0);
  expect(seen.ok).toBeGreaterThan(0);
}, 300_000);

/** A CSV field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break. */
const csvField = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
/** Strings of what needs quoting, a space, and letters of one to four UTF-8 bytes. */
const csvText = (maxLength: number) => fc.string({ unit: fc.constantFrom(',', '"', '\n', '\r', '\r\n', ' ', 'a', 'Z', 'é', '連', '😀'), maxLength });
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });

const generatedCsv = fc.record({
  text: fc.boolean(),
  crlf: fc.boolean(),
  bom: fc.boolean(),
  withTags: fc.boolean(),
  // Metrics: names for text (a text blob stores them), ids for numeric (the decoded blob names them so; id 0 is reserved).
  names: fc.uniqueArray(csvText(12).filter((s) => s !== '' && !/^[0-9a-fA-F]{16}$/.test(s)), { minLength: 1, maxLength: 4 }),
  ids: fc.uniqueArray(fc.bigInt({ min: 1n, max: 2n ** 64n - 1n }), { minLength: 1, maxLength: 4 }),
  points: fc.array(
    fc.record({ metric: fc.nat(3), t: int64, value: fc.double(), text: csvText(20), tag: fc.oneof(fc.constant(''), csvText(10)) }),
    { minLength: 1, maxLength: 30 },
  ),
});

it(`${CSV_RUNS / 2} generated well-formed CSVs encode to blobs holding their points`, () => {
  fc.assert(
    fc.property(generatedCsv, (g) => {
      const keys = g.text ? g.names : g.ids.map((id) => id.toString(16).padStart(16, '0'));
      const eol = g.crlf ? '\r\n' : '\n';
      const rows = g.points.map((p) => ({ ...p, key: keys[p.metric % keys.length]!, tag: g.withTags ? p.tag : '' }));
      const number = (v: number) => (Object.is(v, -0) ? '-0' : String(v));
      let csv = `${g.bom ? '\uFEFF' : ''}metric,timestamp,value${g.withTags ? ',tag' : ''}${eol}`;
      for (const row of rows) {
        csv += `${csvField(row.key)},${row.t},${g.text ? csvField(row.text) : number(row.value)}${g.withTags ? `,${csvField(row.tag)}` : ''}${eol}`;
      }
      const encoded = mebo(['encode', '-', '-o', '-', '--kind', g.text ? 'text' : 'numeric'], { input: csv });
      expect(encoded.stderr, JSON.stringify(csv)).toBe('');
      const decoded = mebo(['decode', '--exact', '-'], { input: encoded.stdoutBytes });
      expect(decoded.status).toBe(0);
      const doc = JSON.parse(decoded.stdout) as { metrics: { name?: string; id: string; timestamps: string[]; values?: string[]; texts?: string[]; tags?: string[] }[] };
      // Expected: each metric's rows in row order, metrics as they first appear.
      const order = [...new Set(rows.map((r) => r.key))];
      expect(doc.metrics).toHaveLength(order.length);
      const tagged = rows.some((r) => r.tag !== '');
      const bits = (v: number) => (Number.isNaN(v) ? 'NaN' : new BigUint64Array(Float64Array.of(v).buffer)[0]!.toString(16).padStart(16, '0'));
      for (const key of order) {
        const mine = rows.filter((r) => r.key === key);
        const m = doc.metrics.find((d) => (g.text ? d.name === key : d.id === key));
        expect(m, key).toBeDefined();
        expect(m!.timestamps).toEqual(mine.map((r) => String(r.t)));
        if (g.text) expect(m!.texts).toEqual(mine.map((r) => r.text));
        else expect(m!.values!.map((hex) => (bits(new Float64Array(BigUint64Array.of(BigInt(`0x${hex}`)).buffer)[0]!)))).toEqual(mine.map((r) => bits(r.value)));
        if (tagged) expect(m!.tags).toEqual(mine.map((r) => r.tag));
        else expect(m!.tags).toBeUndefined();
      }
    }),
    { numRuns: Math.ceil(CSV_RUNS / 2) },
  );
}, 300_000);
