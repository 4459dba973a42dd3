// The wasm boundary is declared once, in crates/mebo-wasm: the error codes
// the SDK names are the core's (both builds export them), the read side of
// the SDK type-checks against the decode-only glue it is bundled with, and
// the encoders' options are checked field by field by the bindings.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { CORE_ERROR_CODES, MeboError } from '../src/errors.js';
import { init, NumericBlob, NumericEncoder, TextBlob, TextBlobEncoder, type MeboErrorCode } from '../src/entries/index.js';
import * as fullGlue from '../wasm/mebo_wasm.js';
import * as decodeGlue from '../wasm/mebo_decode.js';
import { PACKAGE_ROOT } from './helpers/vectors.js';

const WASM = join(PACKAGE_ROOT, 'wasm');

beforeAll(async () => {
  await init();
  decodeGlue.initSync({ module: readFileSync(join(WASM, 'mebo_decode_scalar.wasm')) });
});

describe('CORE_ERROR_CODES', () => {
  it("is the full build's errorCodes() (mebo::Error::CODES)", () => {
    expect(fullGlue.hasEncoders()).toBe(true);
    expect([...CORE_ERROR_CODES]).toEqual(fullGlue.errorCodes());
  });

  it("is the decode-only build's errorCodes()", () => {
    expect(decodeGlue.hasEncoders()).toBe(false);
    expect([...CORE_ERROR_CODES]).toEqual(decodeGlue.errorCodes());
  });
});

describe('the decode-only glue', () => {
  it('declares every type and class the read side (src/entries/decode.ts) uses', () => {
    // src/ imports the full glue; mebo/decode is bundled with the decode-only
    // one in its place (build-sdk.mjs): type-check it that way.
    const config = ts.getParsedCommandLineOfConfigFile(join(PACKAGE_ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const options = { ...config.options, noEmit: true, skipLibCheck: false };
    const host = ts.createCompilerHost(options);
    const swaps: Record<string, string> = {
      '../wasm/mebo_wasm.js': join(WASM, 'mebo_decode.d.ts'),
      './hosts/wasm-location.js': join(PACKAGE_ROOT, 'src/hosts/wasm-location-decode.ts'),
    };
    const resolved: string[] = [];
    host.resolveModuleNameLiterals = (literals, containingFile) =>
      literals.map((literal) => {
        const swap = swaps[literal.text];
        if (swap !== undefined) {
          resolved.push(literal.text);
          return { resolvedModule: { resolvedFileName: swap, extension: swap.endsWith('.d.ts') ? ts.Extension.Dts : ts.Extension.Ts } };
        }
        return ts.resolveModuleName(literal.text, containingFile, options, host);
      });
    const program = ts.createProgram([join(PACKAGE_ROOT, 'src/entries/decode.ts')], options, host);
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
    expect(resolved).toContain('../wasm/mebo_wasm.js');
    const files = program.getSourceFiles().map((f) => f.fileName);
    expect(files).toContain(join(WASM, 'mebo_decode.d.ts'));
    expect(files.some((f) => f.endsWith('mebo_wasm.d.ts') || f.endsWith('encoder.ts'))).toBe(false);
  });
});

describe("the encoders' options object", () => {
  function codeOf(fn: () => unknown): [MeboErrorCode, string] {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(MeboError);
      return [(error as MeboError).code, (error as MeboError).message];
    }
    throw new Error('expected a throw');
  }

  it('a field of the wrong type is INVALID_ARGUMENT naming it, checked before any value is parsed', () => {
    const numeric: [string, unknown][] = [
      ['config', 5],
      ['timestampEncoding', true],
      ['valueEncoding', null],
      ['timestampCompression', 1n],
      ['valueCompression', {}],
      ['tags', 'yes'],
      ['bigEndian', 0],
      ['layout', ['v2']],
    ];
    for (const [field, value] of numeric) {
      const [code, message] = codeOf(() => new NumericEncoder(0n, { valueEncoding: 'brotli', [field]: value } as never));
      expect(code, field).toBe('INVALID_ARGUMENT');
      expect(message, field).toMatch(new RegExp(`^${field} must be a (string|boolean), got `));
    }
    for (const [field, value] of [['timestampEncoding', 1], ['dataCompression', false], ['tags', 'true'], ['bigEndian', null]] as const) {
      const [code, message] = codeOf(() => new TextBlobEncoder(0n, { dataCompression: 'brotli', [field]: value } as never));
      expect(code, field).toBe('INVALID_ARGUMENT');
      expect(message, field).toMatch(new RegExp(`^${field} must be a (string|boolean), got `));
    }
    expect(codeOf(() => new NumericEncoder(0n, { tags: 'yes' } as never))[1]).toBe('tags must be a boolean, got "yes"');
  });

  it('an unknown value is INVALID_OPTIONS; absent, undefined and inherited fields read as JavaScript reads them', () => {
    expect(codeOf(() => new NumericEncoder(0n, { timestampCompression: 'brotli' as never }))[0]).toBe('INVALID_OPTIONS');
    expect(codeOf(() => new TextBlobEncoder(0n, { dataCompression: 'brotli' as never }))[0]).toBe('INVALID_OPTIONS');
    const inherited = Object.create({ layout: 'v3' }) as object;
    expect(codeOf(() => new NumericEncoder(0n, inherited))[0]).toBe('INVALID_OPTIONS');
    for (const options of [undefined, null, {}, { tags: undefined, layout: undefined }]) {
      using encoder = new NumericEncoder(0n, options as never);
      expect(encoder.metricCount).toBe(0);
      using text = new TextBlobEncoder(0n, options as never);
      expect(text.metricCount).toBe(0);
    }
  });
});

describe("the encoders' strings in bulk, joined (one string and UTF-16 ends)", () => {
  // A lone high surrogate ending one string and a lone low one starting the
  // next make a pair once joined: each must still read as U+FFFD, as each
  // string converted alone (the glue's conversion of any string argument).
  const strings = ['a\uD83D', '\uDE00b', '\uDFFF', '', 'ok \u{1F600}', '\uD800', '温度'];
  const converted = ['a\uFFFD', '\uFFFDb', '\uFFFD', '', 'ok \u{1F600}', '\uFFFD', '温度'];
  const timestamps = strings.map((_, i) => BigInt(i + 1));

  it('lone surrogates read as U+FFFD, as they do one string at a time', () => {
    using bulk = new TextBlobEncoder(0n, { tags: true });
    bulk.startMetric('bulk', strings.length).addPoints(timestamps, strings, [...strings].reverse()).endMetric();
    bulk.startMetric('one', strings.length);
    strings.forEach((s, i) => bulk.addPoint(timestamps[i], s, strings[strings.length - 1 - i]));
    bulk.endMetric();
    using numeric = new NumericEncoder(0n, { tags: true });
    numeric.startMetric('bulk', strings.length).addPoints(timestamps, new Float64Array(strings.length), strings).endMetric();
    using text = TextBlob.from(bulk.finish());
    for (const name of ['bulk', 'one']) {
      expect(text.metric(name), name).toMatchObject({ values: converted, tags: [...converted].reverse() });
    }
    using numbers = NumericBlob.from(numeric.finish());
    expect(numbers.metric('bulk').tags).toEqual(converted);
  });

  it('refuses joined strings that do not fit, ENCODER_STATE, and the handle stays usable', () => {
    const handle = new fullGlue.TextEncoderHandle(0n, { tags: true });
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as { code?: string }).code;
      }
      return 'no error';
    };
    try {
      handle.startMetricName('m', 2);
      const ok = { text: 'ab', ends: Uint32Array.of(1, 2) };
      const ts = BigInt64Array.of(1n, 2n);
      const hostile: unknown[] = [
        { text: 'ab', ends: Uint32Array.of(2, 1) },
        { text: 'ab', ends: Uint32Array.of(1, 3) },
        { text: 'ab', ends: Uint32Array.of(1, 1) },
        { text: 'a\u00e9', ends: Uint32Array.of(1, 3) },
        { text: 'a\u00e9', ends: Uint32Array.of(0xffffffff, 2) },
        { text: 'ab', ends: [1, 2] },
        { text: 2, ends: Uint32Array.of(1, 2) },
        { ends: Uint32Array.of(1, 2) },
        null,
        'ab',
      ];
      for (const joined of hostile) {
        expect(code(() => handle.addPoints(ts, joined as never, ok)), JSON.stringify(joined)).toBe('ENCODER_STATE');
        // A null `tags` is no tags (an optional argument).
        if (joined !== null) expect(code(() => handle.addPoints(ts, ok, joined as never)), JSON.stringify(joined)).toBe('ENCODER_STATE');
      }
      expect(code(() => handle.addPoints(ts, { text: 'abc', ends: Uint32Array.of(1, 2, 3) }, ok))).toBe('COUNT_MISMATCH');
      handle.addPoints(ts, ok, { text: 'xyz', ends: Uint32Array.of(2, 3) });
      handle.endMetric();
      using blob = TextBlob.from(handle.finish());
      expect(blob.metric('m')).toMatchObject({ values: ['a', 'b'], tags: ['xy', 'z'] });
    } finally {
      handle.free();
    }
  });
});
