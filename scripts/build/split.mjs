// Splitting the light core by function: a primary that keeps the functions a
// profile saw run, and a secondary (the core's rest) with the others, which
// shares the primary's memory, tables and globals: one runtime, its code in
// two files. binaryen's wasm-split does the same, but needs a newer binaryen
// than Debian carries; binaryen.js (the npm build wasm-opt comes from) calls
// functions by name, so a defined function becomes a stub or an import with
// every call and reference to it unchanged.
//
// In the primary each function moved is a stub: when its slot of the table
// `split` is empty it first calls the import `mebo-core-rest`.`loadRest`
// (the SDK instantiates the rest there, or throws), then it calls through the
// slot. The rest imports what it uses of the primary (`primary`.`f<n>`,
// `i<n>` for the primary's own imports, `t<n>`, `g<n>`, `memory`, `split`)
// and its element segment fills the slots when it is instantiated.

import binaryen from 'binaryen';

/** The import every stub calls while its slot is empty. */
export const LOAD_REST = { module: 'mebo-core-rest', base: 'loadRest' };
const SPLIT_TABLE = 'split';

/** wasm-opt's feature flags (`--enable-simd`, …) as binaryen.js features. */
export function featuresOf(flags) {
  const F = binaryen.Features;
  const byFlag = {
    '--enable-bulk-memory': F.BulkMemory | F.BulkMemoryOpt,
    '--enable-sign-ext': F.SignExt,
    '--enable-nontrapping-float-to-int': F.NontrappingFPToInt,
    '--enable-mutable-globals': F.MutableGlobals,
    '--enable-reference-types': F.ReferenceTypes | F.CallIndirectOverlong,
    '--enable-multivalue': F.Multivalue,
    '--enable-simd': F.SIMD128,
  };
  return flags.reduce((features, flag) => {
    if (byFlag[flag] === undefined) throw new Error(`split: no binaryen feature for ${flag}`);
    return features | byFlag[flag];
  }, F.MVP);
}

function read(bytes, features) {
  const mod = binaryen.readBinary(bytes);
  mod.setFeatures(features);
  return mod;
}

/** Every function of `mod`, defined or imported: `{ name, module, base, params, results }`, in index order. */
function functionsOf(mod) {
  const out = [];
  for (let i = 0; i < mod.getNumFunctions(); i++) out.push(binaryen.getFunctionInfo(mod.getFunctionByIndex(i)));
  return out;
}

/**
 * `bytes` with a call to the import `profile`.`ran` (its argument, the
 * function's index) at the start of every defined function: run it, and
 * the indices it was called with are the functions that ran.
 */
export function instrument(bytes, features) {
  const mod = read(bytes, features);
  const defined = functionsOf(mod).flatMap((f, index) => (f.module ? [] : [{ ...f, index }]));
  mod.addFunctionImport('profile$ran', 'profile', 'ran', binaryen.i32, binaryen.none);
  for (const f of defined) {
    const body = mod.block(null, [mod.call('profile$ran', [mod.i32.const(f.index)], binaryen.none), f.body], f.results);
    binaryen.Function.setBody(mod.getFunction(f.name), body);
  }
  if (!mod.validate()) throw new Error('split: the instrumented module does not validate');
  const out = mod.emitBinary();
  mod.dispose();
  return out;
}

/**
 * Split `bytes`, keeping the defined functions whose index (among all
 * functions, imports first, as `instrument` numbers them) is in `kept`.
 * Returns `{ primary, rest, moved }`: the two modules and how many
 * functions moved.
 */
export function splitModule(bytes, kept, features) {
  // The rest first: what it imports decides what the primary exports.
  const rest = read(bytes, features);
  const functions = functionsOf(rest).map((f, index) => ({ ...f, index }));
  const moved = functions.filter((f) => !f.module && !kept.has(f.index));
  const primaryName = new Map();
  for (const f of functions) {
    if (!f.module && !kept.has(f.index)) continue;
    const base = f.module ? `i${f.index}` : `f${f.index}`;
    primaryName.set(base, f.name);
    rest.removeFunction(f.name);
    rest.addFunctionImport(f.name, 'primary', base, f.params, f.results);
  }
  // The memory, its data and the tables' elements are the primary's. binaryen
  // names a module's one memory "0"; -1: no maximum, as the primary's.
  const memory = rest.getMemoryInfo();
  rest.setMemory(memory.initial, memory.max ?? -1, null, [], memory.shared, memory.is64, '0');
  rest.addMemoryImport('0', 'primary', 'memory');
  const tables = [];
  for (let i = 0; i < rest.getNumTables(); i++) tables.push(binaryen.getTableInfo(rest.getTableByIndex(i)).name);
  const segments = [];
  for (let i = 0; i < rest.getNumElementSegments(); i++) segments.push(binaryen.getElementSegmentInfo(rest.getElementSegmentByIndex(i)).name);
  for (const name of segments) rest.removeElementSegment(name);
  for (const [i, name] of tables.entries()) {
    rest.addTableImport(name, 'primary', `t${i}`);
    primaryName.set(`t${i}`, name);
  }
  const globals = [];
  for (let i = 0; i < rest.getNumGlobals(); i++) globals.push(binaryen.getGlobalInfo(rest.getGlobalByIndex(i)));
  for (const [i, g] of globals.entries()) {
    if (g.module) throw new Error(`split: the core imports a global (${g.module}.${g.base})`);
    rest.removeGlobal(g.name);
    rest.addGlobalImport(g.name, 'primary', `g${i}`, g.type, g.mutable);
    primaryName.set(`g${i}`, g.name);
  }
  const exports = [];
  for (let i = 0; i < rest.getNumExports(); i++) exports.push(binaryen.getExportInfo(rest.getExportByIndex(i)).name);
  for (const name of exports) rest.removeExport(name);
  rest.addTableImport(SPLIT_TABLE, 'primary', SPLIT_TABLE);
  rest.addActiveElementSegment(SPLIT_TABLE, 'split-slots', moved.map((f) => f.name), rest.i32.const(0));
  // What the moved functions do not reach goes; the imports left are what the primary exports.
  rest.runPasses(['remove-unused-module-elements']);
  const wanted = WebAssembly.Module.imports(new WebAssembly.Module(rest.emitBinary())).filter((i) => i.module === 'primary');
  if (!rest.validate()) throw new Error('split: the rest does not validate');
  const restBytes = rest.emitBinary();
  rest.dispose();

  const primary = read(bytes, features);
  const load = functionsOf(primary).find((f) => f.module === LOAD_REST.module && f.base === LOAD_REST.base)?.name ?? 'split$loadRest';
  if (load === 'split$loadRest') primary.addFunctionImport(load, LOAD_REST.module, LOAD_REST.base, binaryen.none, binaryen.none);
  primary.addTable(SPLIT_TABLE, moved.length, moved.length);
  for (const [slot, f] of moved.entries()) {
    const args = binaryen.expandType(f.params).map((type, i) => primary.local.get(i, type));
    const empty = primary.ref.is_null(primary.table.get(SPLIT_TABLE, primary.i32.const(slot), binaryen.funcref));
    const call = primary.call_indirect(SPLIT_TABLE, primary.i32.const(slot), args, f.params, f.results);
    // Removed and added under its name again: every call and reference to it stays.
    primary.removeFunction(f.name);
    primary.addFunction(f.name, f.params, f.results, [], primary.block(null, [primary.if(empty, primary.call(load, [], binaryen.none)), call], f.results));
  }
  for (const { name, kind } of wanted) {
    if (name === 'memory' || name === SPLIT_TABLE) continue;
    const internal = primaryName.get(name);
    if (internal === undefined) throw new Error(`split: the rest imports ${name}, which the primary has not`);
    if (kind === 'function') primary.addFunctionExport(internal, name);
    else if (kind === 'table') primary.addTableExport(internal, name);
    else primary.addGlobalExport(internal, name);
  }
  primary.addTableExport(SPLIT_TABLE, SPLIT_TABLE);
  if (!primary.validate()) throw new Error('split: the primary does not validate');
  const primaryBytes = primary.emitBinary();
  primary.dispose();
  return { primary: primaryBytes, rest: restBytes, moved: moved.length };
}

/**
 * Check a split: the primary instantiates with stand-ins for the glue's
 * imports, and its first empty slot's stub instantiates the rest, which
 * fills every slot. Throws an Error saying what is wrong.
 */
export async function checkSplit(primaryBytes, restBytes) {
  const primary = await WebAssembly.compile(primaryBytes);
  const rest = await WebAssembly.compile(restBytes);
  const imports = {};
  for (const { module, name, kind } of WebAssembly.Module.imports(primary)) {
    if (kind !== 'function') throw new Error(`the primary imports a ${kind} (${module}.${name})`);
    (imports[module] ??= {})[name] = () => {};
  }
  let exports;
  imports[LOAD_REST.module][LOAD_REST.base] = () => new WebAssembly.Instance(rest, { primary: exports });
  ({ exports } = await WebAssembly.instantiate(primary, imports));
  const slots = exports[SPLIT_TABLE];
  if (!(slots instanceof WebAssembly.Table) || slots.length === 0) throw new Error('the primary exports no table of slots');
  imports[LOAD_REST.module][LOAD_REST.base]();
  for (let i = 0; i < slots.length; i++) if (slots.get(i) === null) throw new Error(`slot ${i} is empty after the rest was instantiated`);
}
