// `mebo encode` of CSV, run as a child process: every vector's `decode --csv`
// encoded back and decoded, compared with the vector's input file (not with
// our decoder); CSV written by hand (quoting, line ends, a BOM, int64 bounds,
// special values, ids), checked against the blob the same points give as a
// JSON document; and each refusal: its code, its line, its exit status, and
// no output file.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inParallel, isOneLineFailure, mebo, meboAsync } from './helpers/cli.js';
import { rawInput, type DecodedDocument } from './helpers/hosts.js';
import { manifest, VECTORS, type Case } from './helpers/vectors.js';

const tmp = mkdtempSync(join(tmpdir(), 'mebo-cli-csv-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const cases = manifest();
const byName = new Map(cases.map((c) => [c.name, c]));
const blobPath = (c: Case) => join(VECTORS, c.file);
const vector = (name: string) => byName.get(name)!;

/** The flags that spell a case's options (and its kind, which CSV does not say). */
function flags(c: Case): string[] {
  const o = c.options;
  const common = ['--timestamp-encoding', o.timestampEncoding, o.bigEndian ? '--big-endian' : '--no-big-endian', o.tags ? '--tags' : '--no-tags'];
  if (c.kind === 'text') return [...common, '--data-compression', o.dataCompression!, '--kind', 'text'];
  return [...common, '--value-encoding', o.valueEncoding!, '--timestamp-compression', o.timestampCompression!, '--value-compression', o.valueCompression!, '--layout', o.layout!];
}

/** Whether 16 hex digits are the bits of a NaN (any payload). */
const isNaNBits = (hex: string) => {
  const bits = BigInt(`0x${hex}`);
  return ((bits >> 52n) & 0x7ffn) === 0x7ffn && (bits & ((1n << 52n) - 1n)) !== 0n;
};
/** Value bits as compared after CSV: exact, but every NaN alike (CSV carries no payload). */
const csvBits = (hex: string) => (isNaNBits(hex) ? 'NaN' : hex.toLowerCase());

/** The bits of a float64 as 16 hex digits. */
const bitsOf = (v: number) => new BigUint64Array(Float64Array.of(v).buffer)[0]!.toString(16).padStart(16, '0');

/**
 * Assert a decoded document holds the points of a case's input file: per
 * metric (by id) the timestamps exactly, values by bits (NaN as any NaN),
 * texts, names where stored, tags (when no row had one, none or all empty).
 */
function expectPointsOf(doc: DecodedDocument, c: Case): void {
  const input = rawInput(c);
  const where = c.name;
  expect(doc.kind, where).toBe(c.kind);
  expect(doc.metrics.length, where).toBe(input.metrics.length);
  const decoded = new Map(doc.metrics.map((m) => [m.id, m]));
  // The CSV had a tag when the blob kept tags and a point had one.
  const tagged = c.options.tags && input.metrics.some((m) => m.tags?.some((t) => t !== ''));
  for (const m of input.metrics) {
    const at = `${where} metric ${m.name ?? m.id}`;
    const d = decoded.get(m.id.toLowerCase());
    expect(d, `${at} is there`).toBeDefined();
    expect(d!.timestamps, `${at} timestamps`).toEqual(m.timestamps);
    if (c.kind === 'numeric') expect(d!.values!.map(csvBits), `${at} value bits`).toEqual(m.values!.map(csvBits));
    else expect(d!.texts, `${at} texts`).toEqual(m.texts);
    const none = m.timestamps.map(() => '');
    expect(d!.tags ?? none, `${at} tags`).toEqual(tagged ? (m.tags ?? none) : none);
    if (d!.name !== undefined) expect(d!.name, `${at} name`).toBe(m.name);
  }
}

/** The records of CSV text as written, each with its line break (one inside quotes stays in its record). */
function recordTexts(text: string): string[] {
  const records: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) quoted = !quoted; // a doubled quote toggles twice
    else if (c === 10 && !quoted) {
      records.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  expect(start, 'the CSV ends with a line break').toBe(text.length);
  return records;
}

describe('mebo decode --csv, then mebo encode', () => {
  it('every numeric and text vector comes back with its points (values by bits, NaN payloads aside)', async () => {
    // One decode per input file over all of its blobs (a file column says
    // whose row it is), so the 678 vectors take a few dozen processes: each
    // blob's rows, without the file column, are what `decode --csv` of it
    // alone writes (checked below for one blob an input).
    const groups = new Map<string, Case[]>();
    for (const c of cases) groups.set(c.options.input, [...(groups.get(c.options.input) ?? []), c]);
    const cwd = join(VECTORS, dirname(cases[0]!.file));
    const csvOf = new Map<Case, string>();
    await inParallel([...groups.values()], 2, async (group) => {
      const r = await meboAsync(['decode', '--csv', ...group.map((c) => basename(c.file))], { cwd });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      if (group.length === 1) {
        csvOf.set(group[0]!, r.stdout);
        return;
      }
      const [header, ...records] = recordTexts(r.stdout);
      expect(header).toBe('file,metric,timestamp,value,tag\n');
      const rows = new Map<string, string[]>(group.map((c) => [`${basename(c.file)},`, []]));
      for (const record of records) {
        const file = record.slice(0, record.indexOf(',') + 1);
        rows.get(file)!.push(record.slice(file.length));
      }
      for (const c of group) csvOf.set(c, `metric,timestamp,value,tag\n${rows.get(`${basename(c.file)},`)!.join('')}`);
      const alone = await meboAsync(['decode', '--csv', blobPath(group[0]!)]);
      expect(alone.stdout, group[0]!.name).toBe(csvOf.get(group[0]!));
    });
    expect(csvOf.size).toBe(cases.length);
    expect(new Set(cases.map((c) => c.kind))).toEqual(new Set(['numeric', 'text']));

    // Vectors of one input mostly print the same CSV: each distinct one is
    // encoded once, with the options of the first vector that printed it.
    const distinct = new Map<string, Case[]>();
    for (const [c, csv] of csvOf) distinct.set(csv, [...(distinct.get(csv) ?? []), c]);
    const jobs = [...distinct].map(([csv, same], i) => ({ csv, same, path: join(tmp, `vector-${i}.csv`), out: join(tmp, `vector-${i}.mebo`) }));
    await inParallel(jobs, 2, async ({ csv, same, path, out }) => {
      writeFileSync(path, csv);
      const r = await meboAsync(['encode', path, '-o', out, ...flags(same[0]!)]);
      expect(r.stderr, same[0]!.name).toBe('');
      expect(r.status).toBe(0);
    });
    const decoded = await meboAsync(['decode', '--exact', ...jobs.map((j) => j.out)]);
    expect(decoded.stderr).toBe('');
    const lines = decoded.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(jobs.length);
    let checked = 0;
    jobs.forEach(({ same }, i) => {
      const doc = JSON.parse(lines[i]!) as DecodedDocument;
      for (const c of same) {
        expectPointsOf(doc, c);
        checked++;
      }
    });
    expect(checked).toBe(cases.length);
    console.log(`cli csv: ${cases.length} vectors, ${jobs.length} distinct CSVs`);
  }, 300_000);

  it.each([
    'num-gauge1-raw-none-raw-none-notags-le-v1',
    'num-ids-raw-none-gorilla-none-notags-le-v2',
    'num-decimal1-delta-none-alp-none-notags-le-v2',
    'num-gauge1-tagged-raw-zstd-raw-s2-tags-le-v2',
    'txt-status1-delta-none-notags-be',
    'txt-textids-raw-none-notags-le',
    'txt-status1-tagged-raw-none-tags-le',
  ])('reproduces %s byte for byte through a pipe, given its options as flags', (name) => {
    const c = vector(name);
    const csv = mebo(['decode', '--csv', blobPath(c)]);
    expect(csv.status).toBe(0);
    const r = mebo(['encode', '-', '-o', '-', ...flags(c)], { input: csv.stdout });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(Buffer.compare(r.stdoutBytes, readFileSync(blobPath(c))), name).toBe(0);
  });
});

/** Encode `csv` (from stdin) and `doc` (JSON) with the same flags: the blobs must be the same bytes. */
function expectSameBlob(csv: string | Buffer, doc: object, args: string[] = []): Buffer {
  const fromCsv = mebo(['encode', '-', '-o', '-', ...args], { input: csv });
  expect(fromCsv.stderr).toBe('');
  expect(fromCsv.status).toBe(0);
  const jsonArgs = args.filter((a, i) => !['--kind', '--metric'].includes(a) && !['--kind', '--metric'].includes(args[i - 1]!));
  const fromJson = mebo(['encode', '-', '-o', '-', ...jsonArgs], { input: JSON.stringify(doc) });
  expect(fromJson.stderr).toBe('');
  expect(Buffer.compare(fromCsv.stdoutBytes, fromJson.stdoutBytes), 'the CSV and the JSON make the same blob').toBe(0);
  return fromCsv.stdoutBytes;
}

/** Decode a blob (bytes) as --exact JSON. */
function decodeExact(bytes: Buffer): DecodedDocument {
  const r = mebo(['decode', '--exact', '-'], { input: bytes });
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as DecodedDocument;
}

describe('hand-written CSV', () => {
  const INT64_MIN = '-9223372036854775808';
  const INT64_MAX = '9223372036854775807';

  it('quoted names, texts and tags holding commas, quotes and line breaks; CRLF; a BOM', () => {
    const names = ['cpu,"user"', 'multi\nline\r\nname', 'plain'];
    const texts = ['a,b', 'say "hi"', 'two\nlines', '', ' spaced ', '連線逾時'];
    const tags = ['host="a"', '', 'x\r\ny'];
    const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;
    let csv = '\uFEFFmetric,timestamp,value,tag\r\n';
    const metrics = names.map((name) => ({ name, timestamps: [] as string[], texts: [] as string[], tags: [] as string[] }));
    for (let i = 0; i < 12; i++) {
      const m = metrics[i % names.length]!;
      const t = String(1_700_000_000_000_000 + i * 15_000_000);
      const text = texts[i % texts.length]!;
      const tag = tags[i % tags.length]!;
      m.timestamps.push(t);
      m.texts.push(text);
      m.tags.push(tag);
      // Quoted where it must be, and now and then where it need not be.
      csv += `${quote(m.name)},${i % 2 ? quote(t) : t},${/[",\r\n]/.test(text) || i % 3 === 0 ? quote(text) : text},${quote(tag)}\r\n`;
    }
    const doc = { kind: 'text', identifier: 'name', metrics };
    const bytes = expectSameBlob(Buffer.from(csv), doc, ['--kind', 'text']);
    const decoded = decodeExact(bytes);
    expect(decoded.options.tags).toBe(true);
    expect(decoded.metrics.map((m) => m.name)).toEqual(names);
    for (const [i, m] of decoded.metrics.entries()) {
      expect(m.texts).toEqual(metrics[i]!.texts);
      expect(m.tags).toEqual(metrics[i]!.tags);
    }
    // What decode --csv writes of it (LF, no BOM) encodes to the same blob.
    const again = mebo(['encode', '-', '-o', '-', '--kind', 'text'], { input: mebo(['decode', '--csv', '-'], { input: bytes }).stdout });
    expect(Buffer.compare(again.stdoutBytes, bytes)).toBe(0);
  });

  it('int64 bounds as timestamps; -0, the infinities, NaN, subnormals and shortest decimals to the same bits', () => {
    const values = [-0, 0, Infinity, -Infinity, NaN, 5e-324, -1.7976931348623157e308, 0.1, 1e21, -1.5e-7, 123456789.12345679, 2 ** 53 + 2];
    const timestamps = [INT64_MIN, '-1', '0', INT64_MAX];
    const text = (v: number) => (Object.is(v, -0) ? '-0' : String(v));
    let csv = 'metric,timestamp,value\n';
    const metrics = [
      { name: 'bounds', timestamps: [] as string[], values: [] as string[] },
      { name: 'specials', timestamps: [] as string[], values: [] as string[] },
    ];
    values.forEach((v, i) => {
      const m = metrics[i % 2]!;
      const t = timestamps[Math.floor(i / 2) % timestamps.length]!;
      m.timestamps.push(t);
      m.values.push(bitsOf(v));
      csv += `${m.name},${t},${text(v)}\n`;
    });
    for (const layout of ['v1', 'v2']) {
      const bytes = expectSameBlob(csv, { kind: 'numeric', identifier: 'name', metrics }, ['--layout', layout, '--timestamp-encoding', 'raw']);
      const decoded = decodeExact(bytes);
      expect(decoded.startTimeMicros).toBe(INT64_MIN);
      // In the blob's order, which need not be the rows'.
      expect(decoded.metrics.map((m) => m.values).sort()).toEqual(metrics.map((m) => m.values).sort());
      expect(decoded.options.tags).toBe(false);
    }
    // Other spellings of the same numbers: what other tools write.
    const other = 'metric,timestamp,value\nx,1,nan\nx,2,inf\nx,3,-INF\nx,4,+Infinity\nx,5,1.\nx,6,.5\nx,7,+2E3\nx,8,1e400\n';
    const doc = { kind: 'numeric', identifier: 'name', metrics: [{ name: 'x', timestamps: ['1', '2', '3', '4', '5', '6', '7', '8'], values: [NaN, Infinity, -Infinity, Infinity, 1, 0.5, 2000, Infinity].map(bitsOf) }] };
    expectSameBlob(other, doc);
  });

  it('rows of metrics interleaved: grouped in the order metrics first appear, each in row order; no newline at the end; empty lines skipped', () => {
    const csv = 'metric,timestamp,value\nb,30,3\na,10,1\n\nb,20,2\r\n\r\na,5,0.5\nc,1,-1';
    const doc = {
      kind: 'numeric',
      identifier: 'name',
      metrics: [
        { name: 'b', timestamps: ['30', '20'], values: [3, 2].map(bitsOf) },
        { name: 'a', timestamps: ['10', '5'], values: [1, 0.5].map(bitsOf) },
        { name: 'c', timestamps: ['1'], values: [-1].map(bitsOf) },
      ],
    };
    expectSameBlob(csv, doc, ['--layout', 'v2']);
  });

  it('ids: 16 hex digits for every metric are ids, unless --metric name; --metric id reads them so', () => {
    const ids = ['00000000000000ff', 'FEDCBA9876543210'];
    const csv = `metric,timestamp,value\n${ids[0]},1,1\n${ids[1]},1,2\n`;
    const byId = { kind: 'numeric', identifier: 'id', metrics: ids.map((id, i) => ({ id, timestamps: ['1'], values: [bitsOf(i + 1)] })) };
    const byName = { kind: 'numeric', identifier: 'name', metrics: ids.map((name, i) => ({ name, timestamps: ['1'], values: [bitsOf(i + 1)] })) };
    const bytes = expectSameBlob(csv, byId);
    expect(decodeExact(bytes).metrics.map((m) => m.id)).toEqual(ids.map((id) => id.toLowerCase()));
    expectSameBlob(csv, byId, ['--metric', 'id']);
    expectSameBlob(csv, byName, ['--metric', 'name']);
    // One metric that is not an id makes them all names.
    const mixed = `${csv}cpu,1,3\n`;
    expectSameBlob(mixed, { ...byName, metrics: [...byName.metrics, { name: 'cpu', timestamps: ['1'], values: [bitsOf(3)] }] });
    // Text blobs by id too.
    expectSameBlob(`metric,timestamp,value\n${ids[0]},5,up\n`, { kind: 'text', identifier: 'id', metrics: [{ id: ids[0], timestamps: ['5'], texts: ['up'] }] }, ['--kind', 'text']);
  });

  it('tags: kept when a row has one, none when every tag is empty; --tags as for JSON', () => {
    const doc = { kind: 'numeric', identifier: 'name', metrics: [{ name: 'a', timestamps: ['1', '2'], values: [1, 2].map(bitsOf) }] };
    const empty = 'metric,timestamp,value,tag\na,1,1,\na,2,2,""\n';
    expect(decodeExact(expectSameBlob(empty, doc)).options.tags).toBe(false);
    expectSameBlob(empty, doc, ['--tags']);
    const one = 'metric,timestamp,value,tag\na,1,1,\na,2,2,dc=1\n';
    expect(decodeExact(expectSameBlob(one, { ...doc, metrics: [{ ...doc.metrics[0]!, tags: ['', 'dc=1'] }] })).metrics[0]!.tags).toEqual(['', 'dc=1']);
  });

  it('a file column naming one file is read without it (what decode --csv writes for a stream of one blob)', () => {
    const c = vector('num-gauge1-raw-none-raw-none-notags-le-v1');
    const stream = join(tmp, 'one.mbs');
    expect(mebo(['cat', blobPath(c), '-o', stream]).status).toBe(0);
    const csv = mebo(['decode', '--csv', stream]);
    expect(csv.stdout.startsWith(`file,metric,timestamp,value,tag\n${stream}#0,`)).toBe(true);
    const r = mebo(['encode', '-', '-o', '-', ...flags(c)], { input: csv.stdout });
    expect(r.stderr).toBe('');
    expect(Buffer.compare(r.stdoutBytes, readFileSync(blobPath(c)))).toBe(0);
  });

  it('every encode flag applies: --config, --config auto, --layout, --big-endian, --timestamp-encoding; text flags with --kind text', () => {
    const csv = `metric,timestamp,value\n${Array.from({ length: 200 }, (_, i) => `m${i % 3},${1_700_000_000_000_000 + i * 1_000_000},${(i % 17) / 4}`).join('\n')}\n`;
    const doc = {
      kind: 'numeric',
      identifier: 'name',
      metrics: [0, 1, 2].map((k) => {
        const rows = Array.from({ length: 200 }, (_, i) => i).filter((i) => i % 3 === k);
        return { name: `m${k}`, timestamps: rows.map((i) => String(1_700_000_000_000_000 + i * 1_000_000)), values: rows.map((i) => bitsOf((i % 17) / 4)) };
      }),
    };
    for (const args of [
      ['--config', 'delta-zstd-alp-lz4', '--layout', 'v2-shared'],
      ['--config', 'auto', '--prefer', 'size'],
      ['--timestamp-encoding', 'deltapacked', '--value-encoding', 'chimp', '--big-endian'],
    ]) {
      expectSameBlob(csv, doc, args);
    }
    const text = 'metric,timestamp,value\ns,1,up\ns,2,down\n';
    expectSameBlob(text, { kind: 'text', identifier: 'name', metrics: [{ name: 's', timestamps: ['1', '2'], texts: ['up', 'down'] }] }, ['--kind', 'text', '--data-compression', 'zstd', '--timestamp-encoding', 'delta']);
  });
});

describe('CSV that mebo encode refuses', () => {
  const HEADER = 'metric,timestamp,value\n';
  const long = 'x'.repeat(300);
  it.each([
    ['a value that is not a number', `${HEADER}a,1,1\na,2,abc\n`, [], 'CSV_VALUE', 3, /value "abc" is not a number \(text values: --kind text\)/],
    ['an empty value', `${HEADER}a,1,\n`, [], 'CSV_VALUE', 2, /value ""/],
    ['a hex value', `${HEADER}a,1,0x10\n`, [], 'CSV_VALUE', 2, /0x10/],
    ['a value with spaces', `${HEADER}a,1, 1\n`, [], 'CSV_VALUE', 2, /" 1"/],
    ['a fractional timestamp', `${HEADER}a,1.5,1\n`, [], 'CSV_TIMESTAMP', 2, /timestamp "1.5" is not an int64/],
    ['a timestamp past int64', `${HEADER}a,9223372036854775807,1\na,9223372036854775808,1\n`, [], 'CSV_TIMESTAMP', 3, /9223372036854775808/],
    ['a timestamp below int64', `${HEADER}a,-9223372036854775809,1\n`, [], 'CSV_TIMESTAMP', 2, /-9223372036854775809/],
    ['an empty timestamp', `${HEADER}a,,1\n`, [], 'CSV_TIMESTAMP', 2, /timestamp ""/],
    ['too few fields', `${HEADER}a,1,1\na,2\n`, [], 'CSV_FIELDS', 3, /2 fields where the header has 3/],
    ['too many fields', `metric,timestamp,value,tag\na,1,1,t,extra\n`, [], 'CSV_FIELDS', 2, /5 fields where the header has 4/],
    ['a quote never closed', `${HEADER}a,1,1\n"b,2,2\nc,3,3\n`, [], 'CSV_SYNTAX', 3, /a quoted field is not closed/],
    ['a quote inside an unquoted field', `${HEADER}a"b,1,1\n`, [], 'CSV_SYNTAX', 2, /a quote inside an unquoted field/],
    ['text after a closing quote', `${HEADER}"a"b,1,1\n`, [], 'CSV_SYNTAX', 2, /text after a closing quote/],
    ['a lone carriage return', `${HEADER}a,1,1\ra,2,2\n`, [], 'CSV_SYNTAX', 2, /carriage return/],
    ['the line after a quoted field of three lines', `${HEADER}"a\nb\nc",1,1\nd,2,x\n`, [], 'CSV_VALUE', 5, /"x"/],
    ['a header and no rows', HEADER, [], 'CSV_EMPTY', 1, /no rows/],
    ['rows of two files', 'file,metric,timestamp,value\na.mebo,m,1,1\na.mebo,m,2,2\nb.mebo,m,1,1\n', [], 'CSV_FILES', 4, /"b.mebo" after "a.mebo"/],
    ['an empty metric', `${HEADER}a,1,1\n,2,2\n`, [], 'CSV_METRIC', 3, /the metric is empty/],
    ['--metric id and a name', `${HEADER}00000000000000ff,1,1\ncpu,2,2\n`, ['--metric', 'id'], 'CSV_METRIC', 3, /metric "cpu" is not an id/],
    ['a text too long for a blob', `${HEADER}a,1,ok\nb,1,ok\nb,2,${long}\n`, ['--kind', 'text'], 'LIMIT_EXCEEDED', 3, /metric 1 \("b"\): text value length 300 exceeds the limit 255/],
  ] as const)('%s: its code and line, exit 1, no output file', (_what, csv, args, code, line, message) => {
    const input = join(tmp, `bad-${code}-${line}-${Math.random().toString(36).slice(2)}.csv`);
    const out = `${input}.mebo`;
    writeFileSync(input, csv);
    const r = mebo(['encode', input, '-o', out, ...args]);
    expect(isOneLineFailure(r), r.stderr).toBe(true);
    expect(r.status).toBe(1);
    expect(r.stderr.startsWith(`mebo encode: ${input}: ${code}: line ${line}: `), r.stderr).toBe(true);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
  });

  it('bytes that are not UTF-8 are refused on their line', () => {
    const r = mebo(['encode', '-', '-o', join(tmp, 'utf8.mebo')], { input: Buffer.concat([Buffer.from(`${HEADER}a,1,1\na,2,`), Buffer.from([0xff, 0xfe]), Buffer.from('\n')]) });
    expect(isOneLineFailure(r), r.stderr).toBe(true);
    expect(r.stderr).toBe('mebo encode: -: CSV_UTF8: line 3: not UTF-8 text\n');
    expect(existsSync(join(tmp, 'utf8.mebo'))).toBe(false);
  });

  it('a first line that is no header: read as JSON, and the error says what CSV needs', () => {
    const r = mebo(['encode', '-', '-o', join(tmp, 'no-header.mebo')], { input: 'metric,time,value\na,1,1\n' });
    expect(isOneLineFailure(r), r.stderr).toBe(true);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mebo encode: -: not valid JSON \(.*\), nor CSV \(its first line is no header metric,timestamp,value,tag\)\n$/);
  });

  it.each([
    ['--kind of no kind', ['--kind', 'float'], 'metric,timestamp,value\na,1,1\n', /--kind takes numeric or text, got "float"/],
    ['--metric of no kind', ['--metric', 'both'], 'metric,timestamp,value\na,1,1\n', /--metric takes name or id/],
    ['--kind for JSON', ['--kind', 'text'], '{"kind":"numeric","metrics":[]}', /--kind and --metric are for CSV input/],
    ['a numeric option for text', ['--kind', 'text', '--layout', 'v2'], 'metric,timestamp,value\na,1,up\n', /--layout does not apply to text blobs/],
  ])('%s: a bad command line, exit 2', (_what, args, input, message) => {
    const out = join(tmp, 'usage.mebo');
    const r = mebo(['encode', '-', '-o', out, ...args], { input });
    expect(isOneLineFailure(r), r.stderr).toBe(true);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(out)).toBe(false);
  });
});

it('the help says encode reads CSV, how it reads the metric column, and that NaN payloads need --exact', () => {
  expect(mebo(['--help']).stdout).toMatch(/'decode --csv' CSV/);
  const help = mebo(['encode', '--help']).stdout;
  for (const words of [/header metric,timestamp,value\[,tag\]/, /--kind <numeric\|text>/, /--metric <name\|id>/, /a NaN's payload, which CSV does not carry/, /file column must name one file/]) {
    expect(help).toMatch(words);
  }
});
