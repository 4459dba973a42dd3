import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkCoreGlue, checkGlue, checkModule } from './check.mjs';
import { wasmModule } from './fixtures/wasm.mjs';

const decoder = { name: 'numericblobhandle_decodeAll', index: 0 };
const encoder = { name: 'numericencoderhandle_new', index: 1 };

test('a module with the decoder, and encoders exactly when asked, passes', async () => {
  const full = wasmModule({ functions: 2, exports: [decoder, encoder], imports: [{ module: 'wbg', name: '__wbg_log', kind: 'function' }] });
  await checkModule(full, { encoders: true });
  await assert.rejects(checkModule(full, { encoders: false }), /encoder exports in a decode-only build/);
  const decodeOnly = wasmModule({ functions: 1, exports: [decoder] });
  await checkModule(decodeOnly, { encoders: false });
  await assert.rejects(checkModule(decodeOnly, { encoders: true }), /no encoder exports/);
});

test('a module without the decoder, with a non-function import, or not valid fails', async () => {
  await assert.rejects(checkModule(wasmModule({ functions: 1, exports: [{ name: 'other', index: 0 }] }), { encoders: false }), /no numericblobhandle_decodeAll/);
  // The zstd part has no handles.
  await checkModule(wasmModule({ functions: 1, exports: [{ name: 'decompress', index: 0 }] }), { encoders: false, handles: false });
  const memoryImport = wasmModule({ functions: 1, exports: [decoder], imports: [{ module: 'env', name: 'memory', kind: 'memory' }] });
  await assert.rejects(checkModule(memoryImport, { encoders: false }), /unexpected memory import env.memory/);
  const bytes = wasmModule({ functions: 1, exports: [decoder] });
  await assert.rejects(checkModule(bytes.subarray(0, bytes.length - 4), { encoders: false }), WebAssembly.CompileError);
});

test('the externref table is grown as the glue does; its name on something that does not grow fails', async () => {
  await checkModule(wasmModule({ functions: 1, table: true, exports: [decoder, { name: '__wbindgen_externrefs', kind: 'table', index: 0 }] }), { encoders: false });
  // The name exported, but not on a table that grows (here on a function).
  await assert.rejects(checkModule(wasmModule({ functions: 2, exports: [decoder, { name: '__wbindgen_externrefs', index: 1 }] }), { encoders: false }), TypeError);
});

test('one glue for both builds; none with encoders in the decode-only module', () => {
  checkGlue(['export class NumericBlobHandle {}', 'export class NumericBlobHandle {}'], { encoders: false });
  checkGlue(['export class NumericEncoderHandle {}'], { encoders: true });
  assert.throws(() => checkGlue(['a', 'b'], { encoders: true }), /differs between the simd and scalar builds/);
  assert.throws(() => checkGlue(['export class NumericEncoderHandle {}'], { encoders: false }), /decode-only glue has encoder classes/);
});

test("the light core's glue is the decode-only glue plus its zstd import, nothing else", () => {
  const decode = ['/* @ts-self-types="./mebo_decode.d.ts" */', '', 'function __wbg_get_imports() {', '    const import0 = {', '        __wbg_set_1: function(arg0) {', '            x(arg0);', '        },', '    };', '}'].join('\n');
  const core = [
    '/* @ts-self-types="./mebo_core.d.ts" */',
    "import { zstdDecompress } from 'mebo-zstd-part';",
    'import * as import1 from "mebo-core-rest"',
    '',
    '',
    'function __wbg_get_imports() {',
    '    const import0 = {',
    '        __wbg_set_1: function(arg0) {',
    '            x(arg0);',
    '        },',
    '        __wbg_zstdDecompress_8fa66a6b1146917a: function() { return handleError(function (arg0, arg1, arg2, arg3) {',
    '            const ret = zstdDecompress(getArrayU8FromWasm0(arg1, arg2), arg3);',
    '        }, arguments); },',
    '    };',
    '    return {',
    '        "./mebo_decode_bg.js": import0,',
    '        "mebo-core-rest": import1,',
    '    };',
    '}',
  ].join('\n');
  const decodeReturning = decode.replace(/\n}$/, '\n    return {\n        "./mebo_decode_bg.js": import0,\n    };\n}');
  checkCoreGlue(core, decodeReturning);
  assert.throws(() => checkCoreGlue(core.replace('x(arg0)', 'y(arg0)'), decodeReturning), /not the decode-only glue plus its zstd imports \(first difference at line 6/);
  assert.throws(() => checkCoreGlue(core.replace('"mebo-core-rest": import1,', ''), decodeReturning), /namespace of the core's rest/);
  assert.throws(() => checkCoreGlue(decode, decode.replace('x(', 'y(')), /has no zstd part import/);
});
