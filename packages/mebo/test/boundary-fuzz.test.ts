// The SDK boundary, fuzzed (fast-check): every public function, constructor,
// method and getter of the SDK called with arbitrary arguments — wrong types,
// negative, fractional, NaN and huge numbers, bigints where numbers go and
// back, truncated blobs in shared, detached, offset and zero-length buffers,
// typed arrays of every kind, option objects with arbitrary fields, and
// arguments whose valueOf / getters / iterators call back into the SDK (free
// the object being called, open and decode another blob, reset the module).
//
// Each call must return or throw a MeboError with a documented code (not
// INTERNAL, which marks a defect); reads of a known metric that return must
// return its values; after each run every object is freed and the module
// still decodes a known vector exactly. MEBO_FUZZ_RUNS scales the run (see
// fuzz/FINDINGS.md for the long run).

import fc from 'fast-check';
import { expect, it } from 'vitest';
import * as mebo from '../src/entries/index.js';
import { MEBO_ERROR_CODES } from '../src/errors.js';
import { bitsOf, manifest, numericMetricsOf, readBlob, readInput, textMetricsOf, type Input } from './helpers/vectors.js';

await mebo.init();

const RUNS = Number(process.env.MEBO_FUZZ_RUNS ?? 2_000);
/** MEBO_FUZZ_COLLECT=1: go on after a failing call and list every failure at the end (for triage, no shrinking). */
const COLLECT = process.env.MEBO_FUZZ_COLLECT === '1';
const CALLS_PER_RUN = { minLength: 45, maxLength: 60 };
/** Codes a call may fail with: every documented one but INTERNAL (a defect). */
const ALLOWED = new Set<string>(MEBO_ERROR_CODES.filter((c) => c !== 'INTERNAL'));

const cases = manifest();
const numericCase = cases.find((c) => c.name === 'num-gauge1-tagged-raw-zstd-gorilla-s2-tags-le-v2')!;
const textCase = cases.find((c) => c.name === 'txt-status1-tagged-delta-zstd-tags-be')!;
const numericBytes = readBlob(numericCase);
const textBytes = readBlob(textCase);
const numericInput = readInput(numericCase);
const textInput = readInput(textCase);

/** Two consecutive windows of an input, encoded: a set. */
function windows(input: Input, encode: (metrics: never[], startTime: bigint) => Uint8Array, metricsOf: (i: Input) => unknown[]): Uint8Array[] {
  const halves = [0, 1].map((h) =>
    metricsOf(input).map((m) => {
      const metric = m as { timestamps: BigInt64Array; values: unknown; tags?: string[] };
      const n = metric.timestamps.length;
      const [lo, hi] = h === 0 ? [0, n >> 1] : [n >> 1, n];
      const cut = <T,>(a: T): T => (Array.isArray(a) || ArrayBuffer.isView(a) ? ((a as unknown as { slice(a: number, b: number): T }).slice(lo, hi)) : a);
      return { ...metric, timestamps: metric.timestamps.slice(lo, hi), values: cut(metric.values), ...(metric.tags ? { tags: metric.tags.slice(lo, hi) } : {}) };
    }),
  );
  return halves.map((metrics) => encode(metrics as never[], (metrics[0]!.timestamps[0] ?? 0n) as bigint));
}
const numericWindows = windows(numericInput, (m, startTime) => mebo.encodeNumeric(m, { startTime, tags: true }), numericMetricsOf);
const textWindows = windows(textInput, (m, startTime) => mebo.encodeText(m, { startTime, tags: true }), textMetricsOf);

// ------------------------------------------------------------------ targets

type Target = 'module' | 'NumericBlob' | 'TextBlob' | 'NumericBlobSet' | 'TextBlobSet' | 'NumericEncoder' | 'TextBlobEncoder' | 'numericBlob' | 'textBlob' | 'numericSet' | 'textSet' | 'numericEncoder' | 'textEncoder' | 'freedBlob';

/** Members that TypeScript marks protected: not part of the public surface. */
const PROTECTED = new Set(['live', 'id', 'metricId', 'metricHead', 'value', 'values:encoder', 'limitHint', 'metricValues', 'stage']);

/** Public members of an object's class chain (methods and getters). */
function membersOf(object: object, encoder: boolean): string[] {
  const names = new Set<string>();
  for (let proto = Object.getPrototypeOf(object); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || PROTECTED.has(name) || (encoder && PROTECTED.has(`${name}:encoder`))) continue;
      names.add(name);
    }
  }
  names.add('free');
  return [...names].sort();
}

const CLASSES = { NumericBlob: mebo.NumericBlob, TextBlob: mebo.TextBlob, NumericBlobSet: mebo.NumericBlobSet, TextBlobSet: mebo.TextBlobSet, NumericEncoder: mebo.NumericEncoder, TextBlobEncoder: mebo.TextBlobEncoder };
const MODULE_FUNCTIONS = Object.entries(mebo)
  .filter(([name, v]) => typeof v === 'function' && !(name in CLASSES) && name !== 'MeboError')
  .map(([name]) => name)
  .sort();

/** The objects of one run, made fresh. */
interface Run {
  objects: Record<string, { free(): void } & Record<string, unknown>>;
  /** Every SDK object a call returned or an argument's callback made: freed at the end. */
  made: { free(): void }[];
}

function freshRun(): Run {
  const freed = mebo.NumericBlob.from(numericBytes);
  freed.free();
  return {
    objects: {
      numericBlob: mebo.NumericBlob.from(numericBytes) as never,
      textBlob: mebo.TextBlob.from(textBytes) as never,
      numericSet: mebo.NumericBlobSet.from(numericWindows) as never,
      textSet: mebo.TextBlobSet.from(textWindows) as never,
      numericEncoder: new mebo.NumericEncoder(0n, { tags: true }) as never,
      textEncoder: new mebo.TextBlobEncoder(0n, { tags: true }) as never,
      freedBlob: freed as never,
    },
    made: [],
  };
}

const sampleRun = freshRun();
const MEMBERS: Record<string, string[]> = Object.fromEntries(
  Object.entries(sampleRun.objects).map(([name, o]) => [name, membersOf(o, name.endsWith('Encoder'))]),
);
for (const o of Object.values(sampleRun.objects)) o.free();
const STATICS: Record<string, string[]> = Object.fromEntries(
  Object.entries(CLASSES).map(([name, C]) => [name, ['new', ...Object.getOwnPropertyNames(C).filter((n) => typeof (C as unknown as Record<string, unknown>)[n] === 'function')]]),
);

// ------------------------------------------------------------------ arguments

/** Plain-data descriptions of arguments (printable, shrinkable), made into values at call time. */
type Arg =
  | { k: 'prim'; v: unknown }
  | { k: 'key'; which: number; as: 'name' | 'id' | 'idNumber' | 'hex' }
  | { k: 'bytes'; blob: 'numeric' | 'text' | 'garbage'; cut: number; buffer: 'plain' | 'shared' | 'detached' | 'offset' | 'arraybuffer' }
  | { k: 'typed'; kind: number; length: number; fill: unknown }
  | { k: 'array'; items: Arg[] }
  | { k: 'object'; entries: [string, Arg][] }
  | { k: 'reentrant'; action: 'free' | 'open' | 'decode' | 'reset' | 'throw'; via: 'valueOf' | 'toString' | 'getter' | 'iterator' };

const OPTION_KEYS = ['method', 'buckets', 'from', 'to', 'config', 'layout', 'tags', 'maxBytes', 'maxPoints', 'timestamps', 'values', 'codes', 'tagCodes', 'timestampEncoding', 'valueEncoding', 'timestampCompression', 'valueCompression', 'dataCompression', 'bigEndian', 'startTime', 'wasm', 'variant', 'aboveBytes', 'name', 'id', 'xs', 'seconds', 'length', 'then'];
const TYPED = [Uint8Array, Int8Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array, Uint8ClampedArray, DataView] as const;

const primitive = fc.oneof(
  fc.integer({ min: -3, max: 300 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 0.5, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 64, Number.MAX_SAFE_INTEGER + 2, -(2 ** 63), Number.MIN_VALUE),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.constantFrom(0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 64n - 1n, 2n ** 64n),
  fc.string({ maxLength: 12 }),
  fc.constantFrom('minmax', 'lttb', 'v1', 'v2', 'v2-shared', 'delta-zstd-gorilla-zstd', 'raw', 'delta', 'zstd', 's2', 'lz4', 'none', 'simd', 'scalar', 'auto', '', 'cpu', '\u0000', '\ud800'),
  fc.boolean(),
  fc.constantFrom(null, undefined, Symbol('s')),
);

const argArb: fc.Arbitrary<Arg> = fc.letrec<{ arg: Arg }>((tie) => ({
  arg: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ k: fc.constant('prim' as const), v: primitive }),
    fc.record({ k: fc.constant('key' as const), which: fc.nat(8), as: fc.constantFrom('name' as const, 'id' as const, 'idNumber' as const, 'hex' as const) }),
    fc.record({
      k: fc.constant('bytes' as const),
      blob: fc.constantFrom('numeric' as const, 'text' as const, 'garbage' as const),
      cut: fc.oneof(fc.constant(-1), fc.nat(400)),
      buffer: fc.constantFrom('plain' as const, 'shared' as const, 'detached' as const, 'offset' as const, 'arraybuffer' as const),
    }),
    fc.record({ k: fc.constant('typed' as const), kind: fc.nat(TYPED.length - 1), length: fc.oneof(fc.constant(0), fc.nat(40)), fill: primitive }),
    fc.record({ k: fc.constant('array' as const), items: fc.array(tie('arg'), { maxLength: 4 }) }),
    fc.record({ k: fc.constant('object' as const), entries: fc.array(fc.tuple(fc.constantFrom(...OPTION_KEYS), tie('arg')), { maxLength: 4 }) }),
    fc.record({
      k: fc.constant('reentrant' as const),
      action: fc.constantFrom('free' as const, 'open' as const, 'decode' as const, 'reset' as const, 'throw' as const),
      via: fc.constantFrom('valueOf' as const, 'toString' as const, 'getter' as const, 'iterator' as const),
    }),
  ),
})).arg;

const callArb = fc.record({
  target: fc.constantFrom<Target>('module', 'NumericBlob', 'TextBlob', 'NumericBlobSet', 'TextBlobSet', 'NumericEncoder', 'TextBlobEncoder', 'numericBlob', 'textBlob', 'numericSet', 'textSet', 'numericEncoder', 'textEncoder', 'freedBlob'),
  member: fc.nat(),
  args: fc.array(argArb, { maxLength: 4 }),
});
type Call = { target: Target; member: number; args: Arg[] };

/** A thrown value from an argument's callback, told apart from the SDK's. */
class CallbackError extends Error {}

function bytesOf(arg: Extract<Arg, { k: 'bytes' }>): Uint8Array | ArrayBuffer {
  const source = arg.blob === 'numeric' ? numericBytes : arg.blob === 'text' ? textBytes : Uint8Array.from({ length: 300 }, (_, i) => (i * 151 + 7) & 0xff);
  const bytes = arg.cut < 0 ? source : source.subarray(0, Math.min(arg.cut, source.length));
  switch (arg.buffer) {
    case 'plain':
      return bytes.slice();
    case 'arraybuffer':
      return bytes.slice().buffer;
    case 'offset': {
      const padded = new Uint8Array(bytes.length + 13);
      padded.set(bytes, 13);
      return padded.subarray(13);
    }
    case 'shared': {
      const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
      shared.set(bytes);
      return shared;
    }
    case 'detached': {
      const copy = bytes.slice();
      structuredClone(copy.buffer, { transfer: [copy.buffer] });
      return copy;
    }
  }
}

function keyOf(arg: Extract<Arg, { k: 'key' }>, target: Target): unknown {
  const input = target.startsWith('text') || target === 'TextBlob' ? textInput : numericInput;
  const metric = input.metrics[arg.which % input.metrics.length]!;
  if (arg.as === 'name') return metric.name ?? 'missing.name';
  if (arg.as === 'id') return metric.id;
  if (arg.as === 'idNumber') return Number(metric.id);
  return metric.id.toString(16);
}

function valueOf(arg: Arg, run: Run, call: Call): unknown {
  switch (arg.k) {
    case 'prim':
      return arg.v;
    case 'key':
      return keyOf(arg, call.target);
    case 'bytes':
      return bytesOf(arg);
    case 'typed': {
      const Kind = TYPED[arg.kind]!;
      if (Kind === DataView) return new DataView(new ArrayBuffer(arg.length * 8));
      const array = new (Kind as unknown as new (n: number) => { fill(v: unknown): unknown })(arg.length);
      try {
        array.fill(arg.fill);
      } catch {
        // a fill of the wrong type (a bigint into Float64Array): zeros
      }
      return array;
    }
    case 'array':
      return arg.items.map((item) => valueOf(item, run, call));
    case 'object':
      return Object.fromEntries(arg.entries.map(([key, item]) => [key, valueOf(item, run, call)]));
    case 'reentrant': {
      const act = () => {
        if (arg.action === 'free') for (const o of Object.values(run.objects)) o.free();
        else if (arg.action === 'open') run.made.push(mebo.NumericBlob.from(numericBytes));
        else if (arg.action === 'decode') {
          using blob = mebo.TextBlob.from(textBytes);
          blob.decodeAll();
        } else if (arg.action === 'reset') void mebo.reset().catch(() => {});
        else throw new CallbackError('thrown by an argument');
        return 1;
      };
      if (arg.via === 'valueOf') return { valueOf: act };
      if (arg.via === 'toString') return { toString: () => String(act()) };
      if (arg.via === 'iterator') return { *[Symbol.iterator]() { yield act(); } };
      return Object.defineProperty({}, 'timestamps', { get: act, enumerable: true });
    }
  }
}

// ------------------------------------------------------------------ checks

/** What a known metric must read as, for reads that returned. */
function checkKnownRead(target: Target, member: string, args: unknown[], result: unknown): void {
  if ((target !== 'numericBlob' && target !== 'textBlob') || !['metric', 'timestamps', 'values'].includes(member)) return;
  const input = target === 'numericBlob' ? numericInput : textInput;
  const key = args[0];
  const want = input.metrics.find((m) => m.name === key || m.id === key || (typeof key === 'number' && BigInt.asUintN(64, m.id) === BigInt(key)));
  if (!want || typeof key === 'number') return; // a number key that named a metric: precision decides which
  const got = (member === 'metric' ? result : { [member]: result }) as { timestamps?: BigInt64Array; values?: Float64Array | string[] };
  if (got.timestamps) expect(Array.from(got.timestamps), `${target}.${member} timestamps`).toEqual(Array.from(want.timestamps));
  if (got.values) {
    const values = got.values;
    if (values instanceof Float64Array) expect(bitsOf(values), `${target}.${member} values`).toEqual(bitsOf(want.values));
    else expect(values, `${target}.${member} values`).toEqual(want.texts);
  }
}

/** A known vector decodes exactly. */
function expectModuleDecodes(): void {
  using blob = mebo.NumericBlob.from(numericBytes);
  for (const m of numericInput.metrics) {
    const got = blob.metric(m.id);
    expect(got.timestamps).toEqual(m.timestamps);
    expect(bitsOf(got.values)).toEqual(bitsOf(m.values));
  }
}

const isOwned = (v: unknown): v is { free(): void } => typeof v === 'object' && v !== null && typeof (v as { free?: unknown }).free === 'function';

let calls = 0;
const failures: string[] = [];

async function perform(run: Run, call: Call): Promise<void> {
  let member: string;
  let invoke: (args: unknown[]) => unknown;
  if (call.target === 'module') {
    member = MODULE_FUNCTIONS[call.member % MODULE_FUNCTIONS.length]!;
    const fn = (mebo as unknown as Record<string, (...a: unknown[]) => unknown>)[member]!;
    invoke = (args) => fn(...args);
  } else if (call.target in CLASSES) {
    const C = CLASSES[call.target as keyof typeof CLASSES] as unknown as (new (...a: unknown[]) => unknown) & Record<string, (...a: unknown[]) => unknown>;
    const names = STATICS[call.target]!;
    member = names[call.member % names.length]!;
    invoke = member === 'new' ? (args) => new C(...args) : (args) => C[member]!(...args);
  } else {
    const object = run.objects[call.target]!;
    const names = MEMBERS[call.target]!;
    member = names[call.member % names.length]!;
    const descriptor = findDescriptor(object, member);
    invoke = descriptor?.get ? () => (object as Record<string, unknown>)[member] : (args) => (object[member] as (...a: unknown[]) => unknown).apply(object, args);
  }
  const args = call.args.map((a) => valueOf(a, run, call));
  calls++;
  try {
    let result = invoke(args);
    if (result instanceof Promise) result = await result;
    if (isOwned(result) && !Object.values(run.objects).includes(result as never)) run.made.push(result);
    checkKnownRead(call.target, member, args, result);
  } catch (error) {
    if (error instanceof CallbackError) return; // the argument's own throw, passed through
    if (error instanceof mebo.MeboError && ALLOWED.has(error.code)) return;
    const what = error instanceof mebo.MeboError ? `MeboError ${error.code}: ${error.message}` : `${(error as Error)?.name}: ${(error as Error)?.message ?? String(error)}`;
    failures.push(`${call.target}.${member}(${JSON.stringify(call.args, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))}) threw ${what}`);
    if (!COLLECT) throw error;
  }
}

function findDescriptor(object: object, name: string): PropertyDescriptor | undefined {
  for (let proto = Object.getPrototypeOf(object); proto; proto = Object.getPrototypeOf(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    if (d) return d;
  }
  return undefined;
}

it(`${RUNS} runs of 45-60 arbitrary calls each: every call returns or throws a documented MeboError, and the module still decodes exactly`, async () => {
  const baseline = mebo.memoryInfo().liveHandles;
  await fc.assert(
    fc.asyncProperty(fc.array(callArb, CALLS_PER_RUN), async (sequence) => {
      // A reset an argument started may still be settling: wait for the module.
      await mebo.init();
      const run = freshRun();
      try {
        for (const call of sequence) await perform(run, call);
      } finally {
        await mebo.init();
        for (const o of [...Object.values(run.objects), ...run.made]) o.free();
      }
      expect(mebo.memoryInfo().liveHandles).toBe(baseline);
      // A run may have set a tiny memory budget (setMaxMemoryBytes): the
      // module decodes exactly again once it is back at the default.
      mebo.setMaxMemoryBytes(mebo.DEFAULT_MAX_MEMORY_BYTES);
      expectModuleDecodes();
    }),
    { numRuns: RUNS, seed: process.env.MEBO_FUZZ_SEED ? Number(process.env.MEBO_FUZZ_SEED) : undefined },
  );
  if (COLLECT) console.log([...new Set(failures.map((f) => f.replace(/\(.*\) threw/, '() threw').slice(0, 300)))].join('\n'));
  expect(failures).toEqual([]);
  console.log(`boundary fuzz: ${calls} calls over ${RUNS} runs, ${MODULE_FUNCTIONS.length} module functions, ${Object.values(MEMBERS).reduce((n, m) => n + m.length, 0)} object members, ${Object.values(STATICS).reduce((n, m) => n + m.length, 0)} constructors and statics`);
  expect(calls).toBeGreaterThanOrEqual(RUNS * CALLS_PER_RUN.minLength);
}, 600_000);
