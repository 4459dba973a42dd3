// encodeNumeric / encodeText hand every metric to the bindings in one call
// (addMetrics: crates/mebo-wasm/src/batch.rs, the SDK's encoder.ts). They must
// write what the public per-metric calls write, byte for byte, and refuse
// what those calls refuse, with the same code, naming the refused metric.

import { beforeAll, describe, expect, it } from 'vitest';
import * as glue from '../wasm/mebo_wasm.js';
import { codeStrings } from '../src/coded-strings.js';
import { seeded } from './helpers/stream.js';
import {
  encodeNumeric,
  encodeText,
  init,
  MeboError,
  NumericBlob,
  NumericEncoder,
  TextBlob,
  TextBlobEncoder,
  type MeboErrorCode,
  type NumericEncodeOptions,
  type NumericMetricInput,
  type TextEncodeOptions,
  type TextMetricInput,
} from '../src/entries/index.js';

beforeAll(() => init());

/** Strings a series repeats, and some it does not: non-ASCII, a pair, lone surrogates at either end (a join could pair them). */
const STRINGS = ['', 'up', 'down', 'é', '温度', '😀', 'x'.repeat(200), '\uD83D', '\uDE00', 'a\uD83D', '\uDE00b', 'tab\tnew\nline'];

function pickString(random: () => number): string {
  return random() < 0.8 ? STRINGS[Math.floor(random() * STRINGS.length)]! : `s${Math.floor(random() * 1e6)}`;
}

/** `n` metrics of 1–40 points: by name (`byName`) or by id, some with tags, some given as plain arrays. */
function metricsOf<Vs>(random: () => number, n: number, byName: boolean, values: (count: number) => Vs): { name?: string; id?: bigint; timestamps: BigInt64Array | bigint[]; values: Vs; tags?: string[] }[] {
  return Array.from({ length: n }, (_, i) => {
    const count = 1 + Math.floor(random() * 40);
    let t = BigInt(Math.floor(random() * 1e12)) * (random() < 0.1 ? -1n : 1n);
    const ts = Array.from({ length: count }, () => (t += BigInt(Math.floor(random() * 5000))));
    const key = byName ? { name: i % 7 === 3 ? `métrique-${i}-😀` : `m${i}` } : { id: BigInt(i + 1) * 0x9e3779b97f4a7c15n % (1n << 64n) || 1n };
    return {
      ...key,
      timestamps: random() < 0.5 ? BigInt64Array.from(ts) : ts,
      values: values(count),
      ...(random() < 0.6 ? { tags: Array.from({ length: count }, () => pickString(random)) } : {}),
    };
  });
}

function numericValues(random: () => number): (count: number) => Float64Array | number[] {
  const special = [0, -0, NaN, Infinity, -Infinity, Number.MIN_VALUE, Number.MAX_VALUE];
  return (count) => {
    const vs = Array.from({ length: count }, () => (random() < 0.1 ? special[Math.floor(random() * special.length)]! : (random() - 0.5) * 1e6));
    return random() < 0.5 ? Float64Array.from(vs) : vs;
  };
}

const textValues = (random: () => number) => (count: number) => Array.from({ length: count }, () => pickString(random));

/** The public calls, metric by metric: what the one-call encoders wrote before they crossed once. */
function perMetric<E extends NumericEncoder | TextBlobEncoder>(encoder: E, metrics: readonly { name?: string; id?: bigint; timestamps: BigInt64Array | readonly bigint[]; values: unknown; tags?: readonly string[] }[]): Uint8Array {
  try {
    for (const m of metrics) {
      encoder.startMetric(m.name ?? m.id!, m.timestamps.length);
      (encoder as NumericEncoder).addPoints(m.timestamps, m.values as Float64Array, m.tags);
      encoder.endMetric();
    }
    return encoder.finish();
  } finally {
    encoder.free();
  }
}

function thrown(fn: () => unknown): MeboError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(MeboError);
    return error as MeboError;
  }
  throw new Error('expected a throw');
}

const NUMERIC_OPTIONS: NumericEncodeOptions[] = [
  {},
  { config: 'raw-none-raw-none', tags: true },
  { config: 'delta-zstd-gorilla-zstd', tags: true, layout: 'v2' },
  { config: 'deltapacked-s2-chimp-lz4', layout: 'v2-shared', bigEndian: true },
  { config: 'delta-none-alp-none', tags: true, layout: 'v2' },
  { config: 'auto', tags: true, layout: 'v2' },
];

const TEXT_OPTIONS: TextEncodeOptions[] = [{}, { tags: true }, { tags: true, dataCompression: 'none', timestampEncoding: 'raw' }, { dataCompression: 's2', bigEndian: true, tags: true }];

describe('codeStrings', () => {
  /** The strings back, from the distinct ones and the codes: what the bindings do. */
  const decoded = (c: { text: string; ends: Uint32Array; codes: Uint32Array }) => {
    const distinct = Array.from(c.ends, (end, i) => c.text.slice(i === 0 ? 0 : c.ends[i - 1], end));
    return Array.from(c.codes, (code) => distinct[code]);
  };

  it('codes repeated strings, each distinct one once, in first-seen order', () => {
    const lists = [['up', 'up', 'down', ''], [], ['down', '温度', 'up']];
    const coded = codeStrings(lists, 7);
    expect(coded.text).toBe('updown温度');
    expect(Array.from(coded.ends)).toEqual([2, 6, 6, 8]);
    expect(Array.from(coded.codes)).toEqual([0, 0, 1, 2, 1, 3, 0]);
    expect(decoded(coded)).toEqual(lists.flat());
  });

  it('joins strings that mostly differ whole, each its own code', () => {
    const lists = [Array.from({ length: 100 }, () => 'same'), Array.from({ length: 600 }, (_, i) => `s${i}`)];
    const coded = codeStrings(lists, 700);
    expect(Array.from(coded.codes)).toEqual(Array.from({ length: 700 }, (_, i) => i));
    expect(coded.ends.length).toBe(700);
    expect(decoded(coded)).toEqual(lists.flat());
    // A third distinct: still coded.
    const mostlyRepeated = [Array.from({ length: 1200 }, (_, i) => (i % 3 === 0 ? `s${i}` : 'same'))];
    const stillCoded = codeStrings(mostlyRepeated, 1200);
    expect(stillCoded.ends.length).toBe(401);
    expect(decoded(stillCoded)).toEqual(mostlyRepeated[0]);
  });
});

describe('the one-call encoders write what the per-metric calls write', () => {
  it('numeric: by name and by id, tags on some metrics, typed and plain arrays, every option', () => {
    for (let seed = 1; seed <= 24; seed++) {
      const random = seeded(seed);
      const metrics = metricsOf(random, 1 + Math.floor(random() * 60), seed % 3 !== 0, numericValues(random)) as NumericMetricInput[];
      const options = NUMERIC_OPTIONS[seed % NUMERIC_OPTIONS.length]!;
      const ours = encodeNumeric(metrics, { ...options, startTime: 5n });
      expect(Buffer.from(ours).equals(Buffer.from(perMetric(new NumericEncoder(5n, options), metrics))), `seed ${seed}`).toBe(true);
      // And what was written is the input, bit for bit (a check independent of either path).
      using blob = NumericBlob.from(ours);
      expect(blob.length).toBe(metrics.length);
      for (const m of metrics) {
        const series = blob.metric(m.name ?? m.id!);
        expect(Array.from(series.timestamps)).toEqual(Array.from(m.timestamps));
        expect(Array.from(new BigUint64Array(series.values.buffer, series.values.byteOffset, series.values.length))).toEqual(
          Array.from(new BigUint64Array(Float64Array.from(m.values).buffer)),
        );
      }
    }
  });

  it('text: values and tags repeated, distinct, non-ASCII and lone surrogates', () => {
    for (let seed = 1; seed <= 24; seed++) {
      const random = seeded(1000 + seed);
      const metrics = metricsOf(random, 1 + Math.floor(random() * 40), seed % 3 !== 0, textValues(random)) as TextMetricInput[];
      const options = TEXT_OPTIONS[seed % TEXT_OPTIONS.length]!;
      const ours = encodeText(metrics, { ...options, startTime: 5n });
      expect(Buffer.from(ours).equals(Buffer.from(perMetric(new TextBlobEncoder(5n, options), metrics))), `seed ${seed}`).toBe(true);
      using blob = TextBlob.from(ours);
      // A lone surrogate is stored as U+FFFD, as any string argument's is.
      const stored = (s: string) => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
      for (const m of metrics) {
        const series = blob.metric(m.name ?? m.id!);
        expect(series.values).toEqual(m.values.map(stored));
        if (options.tags) expect(series.tags).toEqual(m.tags ? m.tags.map(stored) : m.values.map(() => ''));
      }
    }
  });

  it('text: values that mostly differ (joined whole, not coded), after repeated ones too', () => {
    const random = seeded(7);
    const repeated = Array.from({ length: 300 }, () => pickString(random));
    const distinct = Array.from({ length: 700 }, (_, i) => (i % 50 === 0 ? '\uDE00' : i % 50 === 1 ? 'z\uD83D' : `v${i}-é`));
    const metrics: TextMetricInput[] = [
      { name: 'repeated-then-distinct', timestamps: ts(1000), values: [...repeated, ...distinct], tags: [...distinct, ...repeated] },
      { name: 'distinct', timestamps: ts(700), values: distinct.map((v) => `${v}!`) },
    ];
    for (const options of TEXT_OPTIONS) {
      const ours = encodeText(metrics, { ...options, startTime: 0n });
      expect(Buffer.from(ours).equals(Buffer.from(perMetric(new TextBlobEncoder(0n, options), metrics))), JSON.stringify(options)).toBe(true);
    }
    using blob = TextBlob.from(encodeText(metrics, { startTime: 0n, tags: true }));
    expect(blob.metric('distinct').values[2]).toBe('v2-é!');
    expect(blob.metric('repeated-then-distinct').tags![1]).toBe('z\uFFFD');
  });

  it('past a million points: in several crossings, the same bytes, a refused metric of a later one named by its own index', () => {
    const big = (name: string, n: number, from: bigint) => ({ name, timestamps: ts(n, from), values: Float64Array.from({ length: n }, (_, i) => i * 0.5) });
    const metrics: NumericMetricInput[] = [big('a', 600_000, 0n), big('b', 300_000, 1n), big('c', 400_000, 2n), big('d', 5, 3n), big('e', 1_100_000, 4n), big('f', 7, 5n)];
    const options: NumericEncodeOptions = { config: 'delta-none-raw-none', layout: 'v2' };
    expect(Buffer.from(encodeNumeric(metrics, { ...options, startTime: 0n })).equals(Buffer.from(perMetric(new NumericEncoder(0n, options), metrics)))).toBe(true);
    const refused = metrics.map((m, i) => (i === 3 ? { ...m, values: new Float64Array(4) } : m));
    const error = thrown(() => encodeNumeric(refused, { ...options, startTime: 0n }));
    expect([error.code, error.message.split(':')[0]]).toEqual(['COUNT_MISMATCH', 'metric 3 ("d")']);
  });

  it('no metrics at all: what finish of an empty encoder gives', () => {
    const numeric = () => new NumericEncoder(0n).finish();
    const text = () => new TextBlobEncoder(0n).finish();
    for (const [ours, theirs] of [
      [() => encodeNumeric([], { startTime: 0n }), numeric],
      [() => encodeText([], { startTime: 0n }), text],
    ] as const) {
      let expected: unknown;
      try {
        expected = theirs();
      } catch (error) {
        expected = (error as MeboError).code;
      }
      let got: unknown;
      try {
        got = ours();
      } catch (error) {
        got = (error as MeboError).code;
      }
      expect(got).toEqual(expected);
    }
  });
});

type Metric = { name?: string; id?: bigint; timestamps: BigInt64Array | readonly bigint[]; values: unknown; tags?: readonly string[] };

const detached = <T extends ArrayBufferView>(array: T): T => {
  structuredClone(array.buffer, { transfer: [array.buffer as ArrayBuffer] });
  return array;
};

const ts = (n: number, from = 1n) => BigInt64Array.from({ length: n }, (_, i) => from + BigInt(i));

/** Three metrics, the middle one replaced by `bad`. */
const around = (bad: Metric, good = (i: number): Metric => ({ name: `m${i}`, timestamps: ts(3), values: new Float64Array([1, 2, 3]) })) => [good(0), bad, good(2)];

const NUMERIC_REFUSALS: [string, Metric[], MeboErrorCode, string, NumericEncodeOptions?][] = [
  ['values short of the timestamps', around({ name: 'b', timestamps: ts(3), values: new Float64Array(2) }), 'COUNT_MISMATCH', '("b")'],
  ['tags short of the timestamps', around({ name: 'b', timestamps: ts(3), values: new Float64Array(3), tags: ['x'] }), 'COUNT_MISMATCH', '("b")', { tags: true }],
  ['a tag over 255 bytes', around({ name: 'b', timestamps: ts(1), values: [1], tags: ['t'.repeat(256)] }), 'LIMIT_EXCEEDED', '("b")', { tags: true }],
  ['a duplicate name', around({ name: 'm0', timestamps: ts(1), values: [1] }), 'DUPLICATE_METRIC', '("m0")'],
  ['an empty name', around({ name: '', timestamps: ts(1), values: [1] }), 'ENCODER_STATE', '("")'],
  ['no points', around({ name: 'b', timestamps: [], values: [] }), 'LIMIT_EXCEEDED', '("b")'],
  ['an id among names', around({ id: 7n, timestamps: ts(1), values: [1] }), 'ENCODER_STATE', '(id 7n)'],
  ['a negative id', around({ id: -7n, timestamps: ts(1), values: [1] }, (i) => ({ id: BigInt(i + 1), timestamps: ts(1), values: [1] })), 'INVALID_ARGUMENT', '(id -7n)'],
  ['id 0', around({ id: 0n, timestamps: ts(1), values: [1] }, (i) => ({ id: BigInt(i + 1), timestamps: ts(1), values: [1] })), 'ENCODER_STATE', '(id 0n)'],
  ['timestamps as numbers', around({ name: 'b', timestamps: [1, 2] as never, values: [1, 2] }), 'INVALID_ARGUMENT', '("b")'],
  ['values as strings', around({ name: 'b', timestamps: ts(1), values: ['1'] }), 'INVALID_ARGUMENT', '("b")'],
  ['tags not an array', around({ name: 'b', timestamps: ts(1), values: [1], tags: 'x' as never }), 'INVALID_ARGUMENT', '("b")'],
  ['detached values', around({ name: 'b', timestamps: ts(3), values: detached(new Float64Array(3)) }), 'INVALID_ARGUMENT', '("b")'],
  ['detached timestamps', around({ name: 'b', timestamps: detached(ts(3)), values: new Float64Array(3) }), 'LIMIT_EXCEEDED', '("b")'],
  ['more points than v1 holds', around({ name: 'b', timestamps: ts(70_000), values: new Float64Array(70_000) }), 'LIMIT_EXCEEDED', '("b")'],
];

describe('a refused metric in the middle: nothing returned, the code of the per-metric calls, the metric named', () => {
  it.each(NUMERIC_REFUSALS)('numeric: %s', (_, metrics, code, label, options = {}) => {
    const error = thrown(() => encodeNumeric(metrics as NumericMetricInput[], { ...options, startTime: 0n }));
    expect(error.code, error.message).toBe(code);
    expect(error.message.startsWith(`metric 1 ${label}: `), error.message).toBe(true);
    // The per-metric calls refuse the same metric with the same code and message.
    const alone = thrown(() => perMetric(new NumericEncoder(0n, options), metrics));
    expect(alone.code).toBe(code);
    expect(error.message).toContain(alone.message);
    // The module goes on: the good metrics encode as before.
    const good = [metrics[0]!, metrics[2]!] as NumericMetricInput[];
    expect(encodeNumeric(good, { ...options, startTime: 0n })).toEqual(perMetric(new NumericEncoder(0n, options), good));
  });

  it("the v1 limit's message still says how to get past it", () => {
    const [, metrics] = NUMERIC_REFUSALS.find(([what]) => what.startsWith('more points'))!;
    expect(thrown(() => encodeNumeric(metrics as NumericMetricInput[])).message).toMatch(/^metric 1 \("b"\): points per metric .*layout: 'v2'/);
    expect(encodeNumeric(metrics as NumericMetricInput[], { layout: 'v2' }).length).toBeGreaterThan(0);
  });

  const text = (i: number): Metric => ({ name: `s${i}`, timestamps: ts(2), values: ['up', 'down'] });
  const TEXT_REFUSALS: [string, Metric[], MeboErrorCode][] = [
    ['a value over 255 bytes', around({ name: 'b', timestamps: ts(2), values: ['ok', 'é'.repeat(128)] }, text), 'LIMIT_EXCEEDED'],
    ['values short of the timestamps', around({ name: 'b', timestamps: ts(2), values: ['ok'] }, text), 'COUNT_MISMATCH'],
    ['values not strings', around({ name: 'b', timestamps: ts(1), values: [1] }, text), 'INVALID_ARGUMENT'],
    ['more points than a text metric holds', around({ name: 'b', timestamps: ts(65_536), values: Array(65_536).fill('v') }, text), 'LIMIT_EXCEEDED'],
    ['a duplicate name', around({ name: 's0', timestamps: ts(1), values: ['v'] }, text), 'DUPLICATE_METRIC'],
  ];

  it.each(TEXT_REFUSALS)('text: %s', (_, metrics, code) => {
    const label = `metric 1 (${JSON.stringify(metrics[1]!.name)}): `;
    const error = thrown(() => encodeText(metrics as TextMetricInput[], { tags: true, startTime: 0n }));
    expect(error.code, error.message).toBe(code);
    expect(error.message.startsWith(label), error.message).toBe(true);
    const alone = thrown(() => perMetric(new TextBlobEncoder(0n, { tags: true }), metrics));
    expect(alone.code).toBe(code);
    expect(error.message).toContain(alone.message);
  });

  it('a long name is cut short in the label, as arguments are described', () => {
    const name = 'n'.repeat(65_536);
    const error = thrown(() => encodeNumeric(around({ name, timestamps: ts(1), values: [1] }) as NumericMetricInput[]));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message.startsWith(`metric 1 ("${'n'.repeat(40)}…"): metric name length`), error.message).toBe(true);
  });
});

describe("the bindings' addMetrics refuses a layout that does not add up", () => {
  it('before any metric, ENCODER_STATE, without a trap', () => {
    const refusal = (run: (h: glue.NumericEncoderHandle) => void) => {
      const handle = new glue.NumericEncoderHandle(0n, {});
      try {
        run(handle);
      } catch (error) {
        return [(error as { code?: string }).code, (error as Error).message, handle.metricCount()];
      } finally {
        handle.free();
      }
      return undefined;
    };
    const names = (...strings: string[]) => ({ text: strings.join(''), ends: Uint32Array.from(strings.map((_, i) => strings.slice(0, i + 1).join('').length)) });
    const none = 0xffff_ffff;
    // Two metrics' shapes over one staged point.
    expect(
      refusal((h) => {
        h.stageColumns(1, 1);
        h.addMetrics(new Uint32Array([1, 1, 1, none, 1, 1, 1, none]), names('a', 'b'), new BigUint64Array(2));
      }),
    ).toEqual(['ENCODER_STATE', 'encoder misuse: addMetrics: the shapes count 2 timestamps, 1 given', 0]);
    expect(refusal((h) => h.addMetrics(new Uint32Array([1, 1, 1]), names('a'), new BigUint64Array(1)))?.[0]).toBe('ENCODER_STATE');
    expect(refusal((h) => h.addMetrics(new Uint32Array([1, 0, 0, none]), names('a', 'b'), new BigUint64Array(1)))?.[0]).toBe('ENCODER_STATE');
    // Tag codes past the distinct tags.
    expect(
      refusal((h) => {
        h.stageColumns(1, 1);
        h.addMetrics(new Uint32Array([1, 1, 1, 1]), names('a'), new BigUint64Array(1), { ...names('t'), codes: new Uint32Array([1]) });
      })?.[0],
    ).toBe('ENCODER_STATE');
  });
});
