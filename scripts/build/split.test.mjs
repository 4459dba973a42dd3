import assert from 'node:assert/strict';
import { test } from 'node:test';
import binaryen from 'binaryen';
import { checkSplit, featuresOf, instrument, LOAD_REST, splitModule } from './split.mjs';

const FEATURES = featuresOf(['--enable-bulk-memory', '--enable-mutable-globals', '--enable-reference-types']);

/**
 * A module with what the core has: an import, a memory with data, a
 * mutable global (a stack pointer), a function table with an element, and
 * functions that call each other, directly and through the table.
 *   square(x) = x * x; add_data(x) = x + load(8); bump(x) = sp += x, sp
 *   via_table(x) = table[0](x) (square); outer(x) = square(x) + add_data(x) + log(x)
 */
function sample() {
  const m = new binaryen.Module();
  m.setFeatures(FEATURES);
  const i32 = binaryen.i32;
  m.setMemory(1, -1, 'memory', [{ offset: m.i32.const(8), data: new Uint8Array([5, 0, 0, 0]), passive: false }]);
  m.addGlobal('sp', i32, true, m.i32.const(1000));
  m.addFunctionImport('log', 'env', 'log', i32, i32);
  m.addFunction('square', i32, i32, [], m.i32.mul(m.local.get(0, i32), m.local.get(0, i32)));
  m.addFunction('add_data', i32, i32, [], m.i32.add(m.local.get(0, i32), m.i32.load(0, 4, m.i32.const(8))));
  m.addFunction('bump', i32, i32, [], m.block(null, [m.global.set('sp', m.i32.add(m.global.get('sp', i32), m.local.get(0, i32))), m.global.get('sp', i32)], i32));
  m.addTable('table', 1, 1);
  m.addActiveElementSegment('table', 'elems', ['square'], m.i32.const(0));
  m.addFunction('via_table', i32, i32, [], m.call_indirect('table', m.i32.const(0), [m.local.get(0, i32)], i32, i32));
  const sum = m.i32.add(m.i32.add(m.call('square', [m.local.get(0, i32)], i32), m.call('add_data', [m.local.get(0, i32)], i32)), m.call('log', [m.local.get(0, i32)], i32));
  m.addFunction('outer', i32, i32, [], sum);
  for (const name of ['square', 'add_data', 'bump', 'via_table', 'outer']) m.addFunctionExport(name, name);
  assert.ok(m.validate());
  const bytes = m.emitBinary();
  m.dispose();
  return bytes;
}

// The functions, as the module computes them (log(x) = 100 + x).
const expected = {
  square: (x) => x * x,
  add_data: (x) => x + 5,
  via_table: (x) => x * x,
  outer: (x) => x * x + x + 5 + 100 + x,
};

/** The indices `instrument` reports for the exports called by `run`. */
async function profile(bytes, run) {
  const ran = new Set();
  const { instance } = await WebAssembly.instantiate(instrument(bytes, FEATURES), { env: { log: (x) => 100 + x }, profile: { ran: (i) => ran.add(i) } });
  run(instance.exports);
  return ran;
}

test('the primary runs what the profile saw alone, and loads the rest the first time a function moved is called', async () => {
  const bytes = sample();
  const kept = await profile(bytes, (e) => e.square(3));
  assert.equal(kept.size, 1);
  const { primary, rest, moved } = splitModule(bytes, kept, FEATURES);
  assert.equal(moved, 4);
  await checkSplit(primary, rest);

  let exports;
  let loads = 0;
  const restModule = await WebAssembly.compile(rest);
  const imports = {
    env: { log: (x) => 100 + x },
    [LOAD_REST.module]: {
      [LOAD_REST.base]: () => {
        loads++;
        new WebAssembly.Instance(restModule, { primary: exports });
      },
    },
  };
  ({ exports } = await WebAssembly.instantiate(await WebAssembly.compile(primary), imports));
  assert.equal(exports.square(7), 49);
  assert.equal(loads, 0, 'a function kept runs without the rest');
  for (const x of [0, 2, 11]) {
    for (const [name, f] of Object.entries(expected)) assert.equal(exports[name](x), f(x), `${name}(${x})`);
  }
  assert.equal(loads, 1, 'the rest is instantiated once: its element segment fills every slot');
  // The rest's functions use the primary's global and memory, not copies.
  assert.equal(exports.bump(5), 1005);
  assert.equal(exports.bump(5), 1010);
  new Uint8Array(exports.memory.buffer)[8] = 9;
  assert.equal(exports.add_data(1), 10);
});

test('a stub whose slot is empty calls the load import first, and fails the call when it throws', async () => {
  const bytes = sample();
  const { primary } = splitModule(bytes, new Set(), FEATURES);
  const imports = { env: { log: (x) => x }, [LOAD_REST.module]: { [LOAD_REST.base]: () => { throw new Error('no rest'); } } };
  const { instance } = await WebAssembly.instantiate(primary, imports);
  assert.throws(() => instance.exports.square(2), /no rest/);
});

test('a split that is broken is refused', async () => {
  const bytes = sample();
  const kept = await profile(bytes, (e) => e.square(3));
  const { primary } = splitModule(bytes, kept, FEATURES);
  // The rest of a split that kept nothing has more slots than this primary's table.
  const { rest: other } = splitModule(bytes, new Set(), FEATURES);
  await assert.rejects(checkSplit(primary, other), /table index is out of bounds/);
});
