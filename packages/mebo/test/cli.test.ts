// The `mebo` command line, run as a child process the way a user runs it
// (the bin link at the repository root, which `npx mebo` runs), checked
// against the conformance vectors.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isOneLineFailure, MEBO_BIN, mebo, parseCsv } from './helpers/cli.js';
import { expectMatchesInput, rawInput, sampleCases, type DecodedDocument } from './helpers/hosts.js';
import { manifest, readInput, REPO_ROOT, VECTORS, type Case } from './helpers/vectors.js';

const tmp = mkdtempSync(join(tmpdir(), 'mebo-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const byName = new Map(manifest().map((c) => [c.name, c]));

/** `mebo args` with `chunk` written to its stdin until it exits (or 1 GiB went in). */
async function endlessStdin(args: string[], chunk: Buffer): Promise<{ status: number | null; stderr: string; written: number }> {
  const child = spawn(MEBO_BIN, args, { cwd: REPO_ROOT });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.on('error', () => {}); // EPIPE once it has stopped reading
  let written = 0;
  let open = true;
  const status = new Promise<number | null>((resolve) => child.on('close', (code) => ((open = false), resolve(code))));
  while (open && written < 1 << 30) {
    written += chunk.length;
    if (!child.stdin.write(chunk)) await new Promise((r) => setTimeout(r, 1));
  }
  return { status: await status, stderr, written };
}
function vector(name: string): Case {
  const c = byName.get(name);
  if (!c) throw new Error(`no vector ${name}`);
  return c;
}
const blobPath = (c: Case) => join(VECTORS, c.file);
const inputPath = (c: Case) => join(VECTORS, c.options.input);

/** A copy of a vector cut to `length` bytes. */
function truncated(c: Case, length: number): string {
  const path = join(tmp, `${c.name}-${length}.mebo`);
  writeFileSync(path, readFileSync(blobPath(c)).subarray(0, length));
  return path;
}

describe('mebo decode', () => {
  it('by default prints what a person reads: values as numbers (NaN, ±Infinity, -0 as strings), timestamps as µs and ISO 8601', () => {
    const c = vector('num-special-delta-s2-gorilla-zstd-notags-be-v1');
    const r = mebo(['decode', blobPath(c)]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as { startTime: string; metrics: { id: string; points: number; timestamps: (number | string)[]; times: string[]; values: (number | string)[] }[] };
    const input = readInput(c);
    // Independently: each input value by its bits, as the readable form must write it.
    const readable = (v: number) => (Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : Object.is(v, -0) ? '-0' : v);
    const floorMs = (t: bigint) => (t >= 0n ? t / 1000n : -((-t + 999n) / 1000n));
    const iso = (t: bigint) => `${new Date(Number(floorMs(t))).toISOString().slice(0, -1)}${String(t - floorMs(t) * 1000n).padStart(3, '0')}Z`;
    const micros = (t: bigint) => (t >= -(2n ** 53n) && t <= 2n ** 53n ? Number(t) : String(t));
    expect(doc.metrics).toHaveLength(input.metrics.length);
    input.metrics.forEach((m, i) => {
      const got = doc.metrics[i]!;
      expect(got.id).toBe(m.id.toString(16).padStart(16, '0'));
      expect(got.points).toBe(m.timestamps.length);
      expect(got.values).toEqual(Array.from(m.values, readable));
      expect(got.timestamps).toEqual(Array.from(m.timestamps, micros));
      expect(got.times).toEqual(Array.from(m.timestamps, iso));
    });
    expect(input.metrics.flatMap((m) => Array.from(m.values)).some((v) => Number.isNaN(v) || Object.is(v, -0))).toBe(true);
    expect(doc.startTime).toBe(iso(input.startTime));
  });

  it('--exact prints one blob as pretty JSON equal to its input, with the blob options', () => {
    for (const name of ['num-decimal1-delta-zstd-alp-lz4-notags-le-v2-shared', 'txt-status1-tagged-delta-zstd-tags-be']) {
      const c = vector(name);
      const r = mebo(['decode', '--exact', blobPath(c)]);
      expect(r.stderr, name).toBe('');
      expect(r.status, name).toBe(0);
      expect(r.stdout.split('\n').length, `${name}: pretty`).toBeGreaterThan(100);
      const doc = JSON.parse(r.stdout) as DecodedDocument;
      expectMatchesInput(doc, c);
      // Text blobs written by name store the names; numeric blobs only after a hash collision.
      expect(doc.identifier, name).toBe(c.kind === 'text' ? 'name' : 'id');
    }
  });

  it('prints several blobs as one compact document per line, in argument order', () => {
    const cases = sampleCases();
    const r = mebo(['decode', '--exact', ...cases.map(blobPath)]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(cases.length);
    cases.forEach((c, i) => expectMatchesInput(JSON.parse(lines[i]!) as DecodedDocument, c));
  });

  it('gives a failing file its own error line, decodes the rest, and exits 1', () => {
    const good = vector('num-gauge1-delta-zstd-gorilla-s2-notags-le-v1');
    const text = vector('txt-status1-raw-lz4-notags-le');
    const missing = join(tmp, 'missing.mebo');
    const cut = truncated(good, 100);
    const files = [blobPath(good), missing, cut, blobPath(text)];
    const r = mebo(['decode', '--exact', ...files]);
    expect(r.status).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(4);
    expectMatchesInput(JSON.parse(lines[0]!) as DecodedDocument, good);
    expect(JSON.parse(lines[1]!)).toEqual({ file: missing, error: { code: 'ENOENT', message: 'no such file' } });
    const failure = JSON.parse(lines[2]!) as { file: string; error: { code: string; message: string } };
    expect(failure.file).toBe(cut);
    expect(failure.error.code).toBe('OFFSET_OUT_OF_RANGE');
    expect(failure.error.message).toMatch(/offset .* out of range/);
    expectMatchesInput(JSON.parse(lines[3]!) as DecodedDocument, text);
    // One stderr line per failing file.
    expect(r.stderr.split('\n')).toEqual([`mebo decode: ${missing}: no such file`, `mebo decode: ${cut}: OFFSET_OUT_OF_RANGE: ${failure.error.message}`, '']);
  });

  it('--csv prints metric, timestamp, value and tag rows with CSV quoting', () => {
    // Texts and tags with commas, quotes, non-ASCII and 255-byte strings.
    const c = vector('txt-status1-tagged-delta-zstd-tags-be');
    const r = mebo(['decode', '--csv', blobPath(c)]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const [header, ...rows] = parseCsv(r.stdout);
    expect(header).toEqual(['metric', 'timestamp', 'value', 'tag']);
    const expected = rawInput(c).metrics.flatMap((m) => m.timestamps.map((t, i) => [m.name!, t, m.texts![i]!, m.tags?.[i] ?? '']));
    expect(rows).toEqual(expected);
    expect(expected.some(([, , text]) => /[",]/.test(text!)), 'the data exercises quoting').toBe(true);
  });

  it('--csv writes numbers that parse back to the same float64 (NaN, infinities and -0 included)', () => {
    const c = vector('num-special-delta-s2-gorilla-zstd-notags-be-v1');
    const other = vector('num-ids-raw-s2-raw-zstd-notags-be-v1');
    const r = mebo(['decode', '--csv', blobPath(c), blobPath(other)]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const [header, ...rows] = parseCsv(r.stdout);
    expect(header).toEqual(['file', 'metric', 'timestamp', 'value', 'tag']);
    const value = (hex: string) => new Float64Array(BigUint64Array.of(BigInt(`0x${hex}`)).buffer)[0]!;
    for (const [file, k] of [[blobPath(c), c], [blobPath(other), other]] as const) {
      const mine = rows.filter((row) => row[0] === file);
      // Metrics without stored names are shown by id; rows of a metric stay together in point order.
      const expected = rawInput(k).metrics.flatMap((m) => m.timestamps.map((t, i) => [m.id, t, value(m.values![i]!)] as const));
      expect(mine).toHaveLength(expected.length);
      const byMetric = new Map<string, string[][]>();
      for (const row of mine) byMetric.set(row[1]!, [...(byMetric.get(row[1]!) ?? []), row]);
      for (const [id, t, v] of expected) {
        const next = byMetric.get(id)!.shift()!;
        expect(next[2], `${k.name} ${id}`).toBe(t);
        expect(Object.is(Number(next[3]), v) || (Number.isNaN(v) && next[3] === 'NaN'), `${k.name} ${id} ${next[3]} vs ${v}`).toBe(true);
        expect(next[4]).toBe('');
      }
    }
    expect(rows.some((row) => row[3] === '-0') && rows.some((row) => row[3] === 'NaN') && rows.some((row) => row[3] === '-Infinity')).toBe(true);
  });
});

describe('mebo encode', () => {
  /** The flags that spell a case's options. */
  function flags(c: Case): string[] {
    const o = c.options;
    const common = [`--timestamp-encoding=${o.timestampEncoding}`, o.bigEndian ? '--big-endian' : '--no-big-endian', o.tags ? '--tags' : '--no-tags'];
    if (c.kind === 'text') return [...common, '--data-compression', o.dataCompression!];
    return [
      ...common,
      '--value-encoding',
      o.valueEncoding!,
      '--timestamp-compression',
      o.timestampCompression!,
      '--value-compression',
      o.valueCompression!,
      '--layout',
      o.layout!,
    ];
  }

  it.each([
    'num-gauge1-raw-none-raw-none-notags-le-v1',
    'num-gauge1-deltapacked-none-gorilla-none-notags-be-v2-shared',
    'num-special-deltapacked-none-chimp-none-notags-le-v2',
    'num-ids-raw-none-gorilla-none-notags-le-v2',
    'num-wide-delta-none-alp-none-notags-le-v1',
    'num-decimal1-delta-none-alp-none-notags-le-v2',
    'txt-status1-delta-none-notags-be',
    'txt-textids-raw-none-notags-le',
    'txt-status1-tagged-raw-none-tags-le',
  ])('reproduces %s byte for byte from its input', (name) => {
    const c = vector(name);
    const out = join(tmp, `${name}.mebo`);
    const r = mebo(['encode', inputPath(c), '-o', out, ...flags(c)]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(Buffer.compare(readFileSync(out), readFileSync(blobPath(c))), name).toBe(0);
  });

  it('takes the four column choices as one --config', () => {
    const c = vector('num-special-deltapacked-none-chimp-none-notags-le-v2');
    const r = mebo(['encode', inputPath(c), '--config', 'deltapacked-none-chimp-none', '--layout', 'v2', '-o', '-']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(Buffer.compare(r.stdoutBytes, readFileSync(blobPath(c)))).toBe(0);
  });

  it('encodes what decode printed (options included) back into the same blob, from stdin', () => {
    for (const name of ['num-ids-raw-none-raw-none-notags-le-v1', 'num-special-deltapacked-none-alp-none-notags-le-v2', 'txt-textids-delta-none-notags-le']) {
      const c = vector(name);
      const decoded = mebo(['decode', '--exact', blobPath(c)]);
      expect(decoded.status).toBe(0);
      const r = mebo(['encode', '-', '-o', '-'], { input: decoded.stdout });
      expect(r.stderr, name).toBe('');
      expect(Buffer.compare(r.stdoutBytes, readFileSync(blobPath(c))), name).toBe(0);
    }
  });

  it('--max-bytes bounds the input, file or stdin: SIZE_CAP on one line, exit 1', () => {
    const c = vector('num-ids-raw-none-raw-none-notags-le-v1');
    const input = readFileSync(inputPath(c));
    const held = mebo(['encode', inputPath(c), '--max-bytes', String(input.length), ...flags(c), '-o', '-']);
    expect(held.stderr).toBe('');
    expect(Buffer.compare(held.stdoutBytes, readFileSync(blobPath(c)))).toBe(0);
    for (const r of [
      mebo(['encode', inputPath(c), '--max-bytes', String(input.length - 1), ...flags(c), '-o', '-']),
      mebo(['encode', '-', '--max-bytes', String(input.length - 1), ...flags(c), '-o', '-'], { input }),
    ]) {
      expect(isOneLineFailure(r), r.stderr).toBe(true);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`SIZE_CAP: input passes --max-bytes ${input.length - 1}`);
      expect(r.stdoutBytes.length).toBe(0);
    }
    // The input is read as one text: no bound past the longest string V8 makes.
    const past = mebo(['encode', inputPath(c), '--max-bytes', String(2 ** 40), '-o', '-']);
    expect(past.status).toBe(2);
    expect(past.stderr).toMatch(/^mebo encode: --max-bytes 1099511627776 is past the longest text Node reads at once \([0-9]+ bytes\) \(see 'mebo encode --help'\)\n$/);
  });

  it('endless stdin to encode ends in SIZE_CAP at the default bound, 256 MiB', async () => {
    const { status, stderr, written } = await endlessStdin(['encode', '-', '-o', join(tmp, 'endless.mebo')], Buffer.alloc(1 << 20, 0x20));
    expect(status).toBe(1);
    expect(stderr).toBe(`mebo encode: -: SIZE_CAP: input passes --max-bytes ${256 << 20}\n`);
    expect(written).toBeLessThan(1 << 30);
  });

  it('a year of hourly points in the default v1 layout says how to hold it: --layout v2', () => {
    const points = 8759;
    const doc = {
      kind: 'numeric',
      startTimeMicros: '1700000000000000',
      identifier: 'name',
      metrics: [{ name: 'hourly', id: '0000000000000000', timestamps: Array.from({ length: points }, (_, i) => String(1_700_000_000_000_000n + BigInt(i) * 3_600_000_000n)), values: Array.from({ length: points }, (_, i) => (0x4000000000000000n + BigInt(i)).toString(16)) }],
    };
    const input = join(tmp, 'hourly.json');
    writeFileSync(input, JSON.stringify(doc));
    const refused = mebo(['encode', input, '-o', join(tmp, 'hourly.mebo')]);
    expect(isOneLineFailure(refused), refused.stderr).toBe(true);
    expect(refused.stderr).toMatch(/points per metric 8759 exceeds the limit 7281: the v1 layout's 16-bit offsets cap .* --layout v2 in the CLI/);
    const held = mebo(['encode', input, '--layout', 'v2', '-o', join(tmp, 'hourly.mebo')]);
    expect(held.stderr).toBe('');
    expect(held.status).toBe(0);
    expect(JSON.parse(mebo(['decode', join(tmp, 'hourly.mebo')]).stdout).metrics[0].points).toBe(points);
  });

  it('writes a compressed, tagged blob that decodes to its input', () => {
    const c = vector('num-gauge1-tagged-raw-zstd-raw-s2-tags-le-v2');
    const out = join(tmp, 'tagged.mebo');
    expect(mebo(['encode', inputPath(c), '-o', out, ...flags(c)]).status).toBe(0);
    const r = mebo(['decode', '--exact', out]);
    expect(r.status).toBe(0);
    expectMatchesInput(JSON.parse(r.stdout) as DecodedDocument, { ...c, file: c.file });
  });
});

describe('mebo inspect', () => {
  it('reports kind, options, start time, section sizes that add up, and points per metric', () => {
    const c = vector('num-decimal1-delta-zstd-alp-lz4-notags-le-v2-shared');
    const r = mebo(['inspect', '--json', blobPath(c)]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout);
    const size = readFileSync(blobPath(c)).length;
    const input = rawInput(c);
    expect(report.kind).toBe('numeric');
    expect(report.size).toBe(size);
    expect(report.startTimeMicros).toBe(input.startTimeMicros);
    expect(report.options).toMatchObject({ timestampEncoding: 'delta', valueEncoding: 'alp', timestampCompression: 'zstd', valueCompression: 'lz4', layout: 'v2-shared', tags: false, bigEndian: false });
    const s = report.sections;
    expect(s.total).toBe(size);
    expect(s.header + s.names + s.index + s.sharedTable + s.timestamps.bytes + s.values.bytes + s.tags.bytes).toBe(size);
    expect(s.header).toBe(32);
    expect(s.index).toBe(16 * input.metrics.length);
    expect(s.sharedTable).toBeGreaterThan(0);
    expect(s.timestamps.decompressedBytes).toBeGreaterThan(0);
    expect(report.metricCount).toBe(input.metrics.length);
    const points = new Map(input.metrics.map((m) => [m.id, m.timestamps.length]));
    expect(report.totalPoints).toBe([...points.values()].reduce((a, b) => a + b, 0));
    expect(new Map(report.metrics.map((m: { id: string; points: number }) => [m.id, m.points]))).toEqual(points);
  });

  it('prints a readable report of a text blob, names included', () => {
    const c = vector('txt-status1-tagged-delta-zstd-tags-be');
    const r = mebo(['inspect', blobPath(c)]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const size = readFileSync(blobPath(c)).length;
    expect(r.stdout).toMatch(/^kind\s+text$/m);
    expect(r.stdout).toMatch(/^byte order\s+big endian$/m);
    expect(r.stdout).toMatch(/^start time\s+1700000000000000 µs \(2023-11-14T22:13:20\.000000Z\)$/m);
    expect(r.stdout).toMatch(new RegExp(`^total\\s+${size}$`, 'm'));
    expect(r.stdout).toMatch(/^data payload\s+\d+\s+\d+$/m);
    for (const m of rawInput(c).metrics) expect(r.stdout).toMatch(new RegExp(`^${m.id}\\s+${m.name!.replaceAll('.', '\\.')}\\s+${m.timestamps.length}$`, 'm'));
  });
});

describe('help and failures', () => {
  it('--help for the tool and each command', () => {
    for (const args of [['--help'], ['inspect', '--help'], ['decode', '--help'], ['encode', '--help'], ['help', 'decode']]) {
      const r = mebo(args);
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toMatch(/Usage/);
    }
    expect(mebo(['encode', '--help']).stdout).toContain('--timestamp-encoding');
    expect(mebo(['--version']).stdout).toMatch(/^mebo \d+\.\d+\.\d+\n$/);
  });

  const blob = () => blobPath(vector('num-gauge1-delta-zstd-gorilla-s2-notags-le-v1'));
  const input = () => inputPath(vector('num-gauge1-delta-zstd-gorilla-s2-notags-le-v1'));
  it.each([
    ['a missing file', () => ['decode', join(tmp, 'nope.mebo')], /no such file/, 1],
    ['a directory', () => ['inspect', tmp], /is a directory/, 1],
    ['a bad flag', () => ['decode', '--frobnicate', blob()], /unknown option --frobnicate/, 2],
    ['an unknown command', () => ['frob'], /unknown command/, 2],
    ['no blob', () => ['inspect'], /which blob/, 2],
    ['a truncated blob (decode)', () => ['decode', truncated(vector('txt-status1-raw-lz4-notags-le'), 20)], /TRUNCATED/, 1],
    ['a truncated blob (inspect)', () => ['inspect', truncated(vector('num-gauge1-delta-zstd-gorilla-s2-notags-le-v1'), 300)], /OFFSET_OUT_OF_RANGE|TRUNCATED/, 1],
    ['not a blob', () => ['decode', input()], /BAD_MAGIC/, 1],
    ['a numeric flag for a text input', () => ['encode', inputPath(vector('txt-status1-raw-lz4-notags-le')), '-o', join(tmp, 'x'), '--layout', 'v2'], /does not apply to text/, 2],
    ['a bad option value', () => ['encode', input(), '-o', join(tmp, 'x'), '--value-encoding', 'zip'], /INVALID_OPTIONS/, 1],
    ['a bad --config', () => ['encode', input(), '-o', join(tmp, 'x'), '--config', 'a-b'], /INVALID_OPTIONS/, 1],
    ['no -o', () => ['encode', input()], /-o <blob> is required/, 2],
    ['input that is not JSON', () => ['encode', blob(), '-o', join(tmp, 'x')], /not valid JSON/, 1],
    ['a boolean flag with a value', () => ['encode', input(), '-o', join(tmp, 'x'), '--tags=maybe'], /--tags/, 2],
  ] as const)('%s: one line on stderr, no stack trace, non-zero exit', (_what, args, message, status) => {
    const r = mebo([...args()]);
    expect(isOneLineFailure(r), JSON.stringify(r.stderr)).toBe(true);
    expect(r.stderr).toMatch(message);
    expect(r.status).toBe(status);
    expect(r.stdout).toBe('');
  });

  it('input that breaks the schema names the field', () => {
    const doc = { kind: 'numeric', startTimeMicros: '0', identifier: 'name', metrics: [{ name: 'a', timestamps: ['1', 'x'], values: ['3ff0000000000000', '0'] }] };
    const r = mebo(['encode', '-', '-o', join(tmp, 'x')], { input: JSON.stringify(doc) });
    expect(isOneLineFailure(r)).toBe(true);
    expect(r.stderr).toBe('mebo encode: -: metrics[0].timestamps[1]: expected an int64 as a decimal string, got "x"\n');
    const short = { ...doc, metrics: [{ name: 'a', timestamps: ['1', '2'], values: ['3ff0000000000000'] }] };
    const r2 = mebo(['encode', '-', '-o', join(tmp, 'x')], { input: JSON.stringify(short) });
    expect(isOneLineFailure(r2)).toBe(true);
    expect(r2.stderr).toMatch(/^mebo encode: -: [A-Z_]+: /);
  });
});

describe('mebo decode limits and streaming', () => {
  const c = vector('num-decimal1-delta-zstd-alp-lz4-notags-le-v2-shared');

  it('writes the JSON JSON.stringify would, a metric at a time (pretty, compact and --exact)', () => {
    const pretty = mebo(['decode', blobPath(c)]);
    expect(pretty.status).toBe(0);
    expect(pretty.stdout).toBe(`${JSON.stringify(JSON.parse(pretty.stdout), null, 2)}\n`);
    const exact = mebo(['decode', '--exact', blobPath(c)]);
    expect(exact.stdout).toBe(`${JSON.stringify(JSON.parse(exact.stdout), null, 2)}\n`);
    const compact = mebo(['decode', blobPath(c), blobPath(c)]);
    const lines = compact.stdout.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(JSON.stringify(JSON.parse(lines[0]!)));
    expect(JSON.parse(lines[0]!)).toEqual(JSON.parse(pretty.stdout));
  });

  it('--max-bytes bounds the input, file or stdin, and each payload: SIZE_CAP on one line, exit 1', () => {
    const size = readFileSync(blobPath(c)).length;
    for (const r of [
      mebo(['decode', '--max-bytes', String(size - 1), blobPath(c)]),
      mebo(['decode', '--max-bytes', String(size - 1), '-'], { input: readFileSync(blobPath(c)) }),
      mebo(['inspect', '--max-bytes', String(size - 1), blobPath(c)]),
    ]) {
      expect(isOneLineFailure(r), r.stderr).toBe(true);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('SIZE_CAP');
    }
    // Enough for the file, not for its decompressed payloads (larger than the stored bytes).
    const payloads = mebo(['decode', '--max-bytes', String(size), blobPath(c)]);
    expect(payloads.status).toBe(0);
    expect(mebo(['decode', '--max-bytes', '16', blobPath(c)]).stderr).toContain('SIZE_CAP');
  });

  it('--max-points refuses a blob with more points', () => {
    const points = readInput(c).metrics.reduce((n, m) => n + m.timestamps.length, 0);
    const r = mebo(['decode', '--max-points', String(points - 1), blobPath(c)]);
    expect(isOneLineFailure(r), r.stderr).toBe(true);
    expect(r.stderr).toContain(`SIZE_CAP: total point count of ${points} exceeds the cap of ${points - 1}`);
    expect(mebo(['decode', '--max-points', String(points), blobPath(c)]).status).toBe(0);
    for (const bad of ['x', '-1', '1.5', '']) {
      const u = mebo(['decode', '--max-points', bad, blobPath(c)]);
      expect(u.status, bad).toBe(2);
      expect(isOneLineFailure(u), u.stderr).toBe(true);
    }
  });

  it('endless stdin ends in SIZE_CAP at the bound, not when memory runs out', async () => {
    // Zeros written until the process exits: it must stop at --max-bytes.
    const { status, stderr, written } = await endlessStdin(['decode', '--max-bytes', String(4 << 20), '-'], Buffer.alloc(1 << 16));
    expect(status).toBe(1);
    expect(stderr).toMatch(/^mebo decode: -: SIZE_CAP: input passes --max-bytes 4194304\n$/);
    expect(written).toBeLessThan(1 << 30);
  });
});
