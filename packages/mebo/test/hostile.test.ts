// Hostile input through the SDK and the CLI: the crafted blobs of the Rust
// core's hostile-input tests (written by `cargo run --example
// hostile_fixtures`, from the same crafting helpers, into target/) must each
// fail with their error code, as a MeboError, without taking memory they do
// not justify, and leave the module working for the next blob. Then hostile
// input past one blob: many tiny blobs in a set, blobs that each pass their
// limits but not the module's budget together, and a worker pool fed hostile
// jobs. (One blob over the budget: memory.test.ts; a trap: trap.test.ts.)

import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_MEMORY_BYTES,
  encodeNumeric,
  init,
  MeboError,
  memoryInfo,
  metricId,
  NumericBlob,
  NumericBlobSet,
  setMaxMemoryBytes,
  TextBlob,
  wasmMemoryBytes,
  type MeboErrorCode,
} from '../src/entries/index.js';
import { MEBO_BIN } from './helpers/cli.js';
import { expectMatchesInput, type DecodedDocument } from './helpers/hosts.js';
import { manifest, REPO_ROOT, VECTORS } from './helpers/vectors.js';

const FIXTURES = join(REPO_ROOT, 'target/hostile-fixtures');

/** What each crafted blob must fail with (the example checks the core agrees before writing it). */
const EXPECTED: Record<string, MeboErrorCode> = {
  'bomb-zstd': 'SIZE_CAP',
  'bomb-s2': 'SIZE_CAP',
  'bomb-lz4': 'SIZE_CAP',
  'bomb-zstd-undeclared': 'SIZE_CAP',
  'bomb-text-zstd': 'SIZE_CAP',
  'zstd-98-bytes-declaring-256mib': 'SIZE_CAP',
  'count-billions': 'SIZE_CAP',
  'metric-count-huge': 'TRUNCATED',
  'offset-past-end': 'OFFSET_OUT_OF_RANGE',
  'offsets-backwards': 'OFFSET_OUT_OF_RANGE',
  'columns-overlap': 'CORRUPT_COLUMN',
  'column-past-payload': 'OFFSET_OUT_OF_RANGE',
  'text-offsets-backwards': 'OFFSET_OUT_OF_RANGE',
  'shared-member-past-end': 'SHARED_TIMESTAMP_TABLE',
  'shared-self-reference': 'SHARED_TIMESTAMP_TABLE',
  'shared-too-many-members': 'SHARED_TIMESTAMP_TABLE',
  'shared-flag-without-table': 'SHARED_TIMESTAMP_TABLE',
  'names-wrong-count': 'COUNT_MISMATCH',
  'names-past-payload': 'METRIC_NAMES',
  'names-not-utf8': 'INVALID_UTF8',
  'names-hash-mismatch': 'NAME_HASH_MISMATCH',
  'short-gorilla': 'CORRUPT_COLUMN',
  'short-chimp': 'CORRUPT_COLUMN',
  'short-alp': 'CORRUPT_COLUMN',
  'short-deltapacked': 'CORRUPT_COLUMN',
  'short-delta': 'CORRUPT_COLUMN',
  'text-value-not-utf8': 'INVALID_UTF8',
  'text-tag-not-utf8': 'INVALID_UTF8',
  'bad-magic': 'BAD_MAGIC',
  'header-truncated': 'TRUNCATED',
};

interface Fixture {
  name: string;
  file: string;
  kind: 'numeric' | 'text';
  expect: string;
  what: string;
}

let fixtures: Fixture[] = [];

beforeAll(async () => {
  // Fast when `cargo test --workspace --release` built the example already; a cold build takes a minute or two.
  const result = spawnSync('cargo', ['run', '--release', '--quiet', '-p', 'mebo', '--example', 'hostile_fixtures', '--', FIXTURES], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (result.error || result.status !== 0) {
    throw new Error(`writing the hostile fixtures failed (cargo run --example hostile_fixtures): ${result.error?.message ?? ''}\n${result.stderr}`);
  }
  fixtures = (JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as { fixtures: Fixture[] }).fixtures;
  await init();
}, 660_000);

/** Open and decode everything through the public API; the first error, or undefined. */
function exercise(f: Fixture, bytes: Uint8Array): unknown {
  try {
    const blob = f.kind === 'text' ? TextBlob.from(bytes) : NumericBlob.from(bytes);
    try {
      blob.decodeAll();
      const keys = blob.names ?? Array.from(blob.metricIds);
      for (const key of keys) {
        blob.metric(key);
        blob.tags(key);
      }
    } finally {
      blob.free();
    }
  } catch (error) {
    return error;
  }
  return undefined;
}

const good = manifest().find((c) => c.name === 'num-gauge1-tagged-raw-zstd-raw-s2-tags-le-v2')!;
const goodText = manifest().find((c) => c.name === 'txt-status1-tagged-delta-zstd-tags-be')!;

/** A good blob still decodes to its input. */
function expectGoodBlobDecodes(): void {
  for (const c of [good, goodText]) {
    const bytes = new Uint8Array(readFileSync(join(VECTORS, c.file)));
    const blob = c.kind === 'text' ? TextBlob.from(bytes) : NumericBlob.from(bytes);
    try {
      const metrics = (blob.names ?? Array.from(blob.metricIds)).map((key) => {
        const m = blob.metric(key);
        const out: Record<string, unknown> = { id: m.id.toString(16).padStart(16, '0'), timestamps: Array.from(m.timestamps, String), tags: m.tags };
        if (m.values instanceof Float64Array) {
          out.values = Array.from(new BigUint64Array(m.values.buffer, m.values.byteOffset, m.values.length), (v) => v.toString(16).padStart(16, '0'));
        } else out.texts = m.values;
        return out;
      });
      const o = blob.options as unknown as Record<string, unknown>;
      const { byteOrder: _b, extendedIndex: _e, metricNames: _n, ...options } = o;
      expectMatchesInput({ kind: c.kind, startTimeMicros: String(blob.startTime), options, metrics } as unknown as DecodedDocument, c);
    } finally {
      blob.free();
    }
  }
}

describe('crafted hostile blobs through the SDK', () => {
  it('cover every kind of damage the core is tested with', () => {
    expect(fixtures.map((f) => f.name).sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const f of fixtures) expect(f.expect, f.name).toBe(EXPECTED[f.name]);
  });

  it('each fails with its MeboError code, and the next good blob still decodes', () => {
    const before = wasmMemoryBytes();
    for (const f of fixtures) {
      const bytes = new Uint8Array(readFileSync(join(FIXTURES, f.file)));
      const error = exercise(f, bytes);
      expect(error, `${f.name} (${f.what}) is refused`).toBeInstanceOf(MeboError);
      expect((error as MeboError).code, `${f.name} (${f.what}): ${(error as Error).message}`).toBe(EXPECTED[f.name]);
      expectGoodBlobDecodes();
    }
    // 100 MiB bombs and billion-point counts are refused before allocating:
    // the module's memory did not grow by anything like them.
    expect(wasmMemoryBytes() - before).toBeLessThan(32 << 20);
  });

  it('tighter caller limits refuse the good blob with SIZE_CAP, and the defaults accept it again', () => {
    const bytes = new Uint8Array(readFileSync(join(VECTORS, good.file)));
    const points = NumericBlob.from(bytes);
    const total = points.totalPoints;
    points.free();
    expect(() => NumericBlob.from(bytes, { maxPoints: total - 1 })).toThrow(expect.objectContaining({ code: 'SIZE_CAP' }));
    expect(() => NumericBlob.from(bytes, { maxDecompressedBytes: 64 })).toThrow(expect.objectContaining({ code: 'SIZE_CAP' }));
    expectGoodBlobDecodes();
  });
});

describe('crafted hostile blobs through the CLI', () => {
  it('each makes `mebo decode` exit 1 with one line naming its code', async () => {
    expect(existsSync(MEBO_BIN), `${MEBO_BIN} (pnpm install at the root links it)`).toBe(true);
    const run = (f: Fixture) =>
      new Promise<{ f: Fixture; code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(MEBO_BIN, ['decode', join(FIXTURES, f.file)], { cwd: REPO_ROOT, timeout: 60_000 }, (error, stdout, stderr) =>
          resolve({ f, code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
        );
        child.stdin?.end();
      });
    // Four at a time: bounded, and quicker than one by one.
    const results = [];
    for (let i = 0; i < fixtures.length; i += 4) results.push(...(await Promise.all(fixtures.slice(i, i + 4).map(run))));
    for (const { f, code, stdout, stderr } of results) {
      expect(code, f.name).toBe(1); // an exit status: no signal
      expect(stdout, f.name).toBe('');
      expect(stderr, f.name).toMatch(new RegExp(`^mebo decode: ${join(FIXTURES, f.file).replaceAll('.', '\\.')}: ${EXPECTED[f.name]}: [^\\n]+\\n$`));
    }
  });

  it('one multi-file `mebo decode` gives every crafted blob its error line and a good blob its document', () => {
    const files = [...fixtures.map((f) => join(FIXTURES, f.file)), join(VECTORS, good.file)];
    const r = spawnSync(MEBO_BIN, ['decode', '--exact', ...files], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 });
    expect(r.status).toBe(1);
    const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(files.length);
    fixtures.forEach((f, i) => expect(lines[i], f.name).toEqual({ file: files[i], error: { code: EXPECTED[f.name], message: expect.any(String) } }));
    expectMatchesInput(lines[fixtures.length] as DecodedDocument, good);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(fixtures.length);
  });
});

/** A blob of one metric, `points` points (a few KB stored: delta timestamps, constant values, zstd). */
function longBlob(points: number, name = 'long'): { bytes: Uint8Array; timestamps: BigInt64Array; values: Float64Array } {
  const timestamps = BigInt64Array.from({ length: points }, (_, i) => 1_700_000_000_000_000n + BigInt(i) * 1000n);
  const values = Float64Array.from({ length: points }, (_, i) => (i % 16) / 4);
  const bytes = encodeNumeric([{ name, timestamps, values }], { config: 'delta-zstd-gorilla-zstd', layout: 'v2' });
  return { bytes, timestamps, values };
}

/** The call's MeboError code. */
function codeOf(fn: () => unknown): MeboErrorCode | 'no error' {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(MeboError);
    return (e as MeboError).code;
  }
  return 'no error';
}

describe('hostile input past one blob', () => {
  it('a set of 5,000 tiny blobs (one or two points of 50 metrics each) materializes exactly', () => {
    // Windows one second apart, given out of order: the set orders them by start time.
    const windows = Array.from({ length: 5_000 }, (_, w) => {
      const start = 1_700_000_000_000_000n + BigInt(w) * 1_000_000n;
      const metric = `m${(w * 7) % 50}`;
      const n = 1 + (w % 2);
      const timestamps = BigInt64Array.from({ length: n }, (_, i) => start + BigInt(i) * 10n);
      const values = Float64Array.from({ length: n }, (_, i) => w + i / 2);
      return { start, metric, timestamps, values, bytes: encodeNumeric([{ name: metric, timestamps, values }], { startTime: start }) };
    });
    const shuffled = windows.map((w, i) => ({ w, key: (i * 7919) % windows.length })).sort((a, b) => a.key - b.key).map(({ w }) => w);
    const set = NumericBlobSet.from(shuffled.map((w) => w.bytes));
    try {
      expect(set.length).toBe(5_000);
      const got = set.materialize();
      // The plain expectation: per metric id ascending, its windows' points in start order.
      const byId = new Map<bigint, { timestamps: bigint[]; values: number[] }>();
      for (const w of windows) {
        const id = metricId(w.metric);
        const series = byId.get(id) ?? { timestamps: [], values: [] };
        series.timestamps.push(...w.timestamps);
        series.values.push(...w.values);
        byId.set(id, series);
      }
      const order = [...byId.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(Array.from(got.ids)).toEqual(order);
      let at = 0;
      const offsets = [0];
      for (const id of order) offsets.push((at += byId.get(id)!.timestamps.length));
      expect(Array.from(got.offsets)).toEqual(offsets);
      expect(Array.from(got.timestamps)).toEqual(order.flatMap((id) => byId.get(id)!.timestamps));
      expect(Array.from(got.values)).toEqual(order.flatMap((id) => byId.get(id)!.values));
    } finally {
      set.free();
    }
  }, 60_000);

  it('blobs that each pass their limits but not the budget together: OUT_OF_MEMORY, every one freeable, the module goes on', () => {
    // Each blob: 1 Mi points, a few KB stored, 16 MiB decoded; the budget holds three decoded.
    const points = 1 << 20;
    const { bytes, timestamps, values } = longBlob(points);
    expect(bytes.length).toBeLessThan(64 << 10);
    const heapBefore = memoryInfo().heapBytes;
    setMaxMemoryBytes(Math.max(2 ** 24, heapBefore + (56 << 20)));
    const held: NumericBlob[] = [];
    let refused: MeboError | undefined;
    try {
      for (let i = 0; i < 16 && refused === undefined; i++) {
        const blob = NumericBlob.from(bytes);
        held.push(blob);
        try {
          blob.columnsView(); // decoded into memory the blob keeps
        } catch (e) {
          refused = e as MeboError;
        }
      }
      expect(refused).toBeInstanceOf(MeboError);
      expect(refused!.code).toBe('OUT_OF_MEMORY');
      expect(held.length).toBeGreaterThan(1);
      expect(held.length).toBeLessThan(16);
      // Those decoded before the refusal read exactly through their views.
      const first = held[0]!.columnsView();
      expect([first.timestamps[points - 1], first.values[points - 1]]).toEqual([timestamps[points - 1], values[points - 1]]);
      // The refused one still answers what needs no more memory.
      expect(held.at(-1)!.totalPoints).toBe(points);
    } finally {
      setMaxMemoryBytes(DEFAULT_MAX_MEMORY_BYTES);
      for (const b of held) b.free();
    }
    expect(held.every((b) => b.freed)).toBe(true);
    expect(memoryInfo().liveHandles).toBe(0);
    expect(memoryInfo().heapBytes).toBeLessThan(heapBefore + (1 << 20));
    expect(codeOf(() => held[0]!.totalPoints)).toBe('FREED');
    expectGoodBlobDecodes();
    using again = NumericBlob.from(bytes);
    const m = again.metric('long');
    expect(m.values.every((v, i) => v === values[i]) && m.timestamps.every((t, i) => t === timestamps[i])).toBe(true);
  });
});

describe('a DecodePool fed hostile jobs', () => {
  it('refuses each with its own code and message, and decodes the valid jobs after them exactly', async () => {
    const { DecodePool } = (await import(pathToFileURL(join(REPO_ROOT, 'packages/mebo/dist/worker/pool-node.js')).href)) as typeof import('../dist/worker/pool.js');
    // One worker, a 48 MiB budget: every job goes through the worker the hostile ones hit.
    const pool = await DecodePool.create({ size: 1, init: { maxMemoryBytes: 48 << 20 }, timeoutMs: 60_000 });
    try {
      const over = longBlob(4 << 20, 'over'); // 64 MiB decoded: past the workers' budget
      const valid = longBlob(1000, 'valid');
      const bomb = fixtures.find((f) => f.name === 'bomb-zstd')!;
      const bombBytes = new Uint8Array(readFileSync(join(FIXTURES, bomb.file)));
      for (let round = 0; round < 3; round++) {
        const failures = await Promise.all([pool.decodeAll(bombBytes), pool.decodeAll(over.bytes)].map((p) => p.then(() => undefined, (e: unknown) => e)));
        // MeboErrors of the built package the pool belongs to (another class than this test's import).
        expect(failures[0]).toMatchObject({ name: 'MeboError', code: 'SIZE_CAP', message: expect.stringMatching(/exceeds|cap/) });
        expect(failures[1]).toMatchObject({ name: 'MeboError', code: 'OUT_OF_MEMORY', message: expect.stringMatching(/^out of memory: \d+ bytes for .+ were refused$/) });
        // Not a disposal's error in place of the failure (the "suppressed during disposal").
        for (const f of failures) expect(String((f as Error).message)).not.toMatch(/suppressed|dispos/i);
        const columns = await pool.decodeAll(valid.bytes);
        expect(columns.kind).toBe('numeric');
        expect(Array.from(columns.timestamps)).toEqual(Array.from(valid.timestamps));
        expect(Array.from(columns.values as Float64Array)).toEqual(Array.from(valid.values));
      }
    } finally {
      await pool.terminate();
    }
  }, 120_000);
});
