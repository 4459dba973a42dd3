// The wasm boundary is declared once, in crates/mebo-wasm: the error codes
// the SDK names are the core's (both builds export them), the read side of
// the SDK type-checks against the decode-only glue it is bundled with, and
// the encoders' options are checked field by field by the bindings.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { CORE_ERROR_CODES, MeboError } from '../src/errors.js';
import { init, NumericEncoder, TextBlobEncoder, type MeboErrorCode } from '../src/index.js';
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
  it('declares every type and class the read side (src/decode.ts) uses', () => {
    // src/ imports the full glue; mebo/decode is bundled with the decode-only
    // one in its place (build-sdk.mjs): type-check it that way.
    const config = ts.getParsedCommandLineOfConfigFile(join(PACKAGE_ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const options = { ...config.options, noEmit: true, skipLibCheck: false };
    const host = ts.createCompilerHost(options);
    const swaps: Record<string, string> = {
      '../wasm/mebo_wasm.js': join(WASM, 'mebo_decode.d.ts'),
      './wasm-location.js': join(PACKAGE_ROOT, 'src/wasm-location-decode.ts'),
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
    const program = ts.createProgram([join(PACKAGE_ROOT, 'src/decode.ts')], options, host);
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
