// The one place the build edits wasm-bindgen's output: its JS glue, so that
// the SDK can re-instantiate the module (`reset()`, to give memory back).
// wasm-bindgen's glue instantiates once per realm and frees a collected handle
// through whichever instance is current; no option of wasm-bindgen (0.2.129)
// changes either, and the SDK bundles the glue, so it cannot be imported
// anew. Two edits, each checked, so a wasm-bindgen that changes the glue
// fails the build here (glue.test.mjs runs them on a glue as wasm-bindgen
// 0.2.129 generates it, and on every glue the last build generated):
// - a collected handle is freed in the instance it was made in (its
//   finalizer's held value carries that instance's exports), so a handle
//   collected after a reset never frees memory of the new instance;
// - `__wbg_reset()` forgets the instance, so the next init makes a new one.

/** What `patchGlue` adds to the glue's declarations. */
const RESET_DECLARATION = '\n/** Forget the instance: the next init instantiates anew (added by scripts/build/glue.mjs). */\nexport function __wbg_reset(): void;\n';

/**
 * The glue with both edits: `{ glue, handleKinds }`, the count of handle
 * classes whose finalizers were changed. Throws when the glue does not have
 * the shape the edits expect, or when a finalizer is left unchanged.
 */
export function patchGlue(glue) {
  const edit = (pattern, replacement, what) => {
    const count = glue.match(pattern)?.length ?? 0;
    if (count === 0) throw new Error(`build: the wasm-bindgen glue has no ${what} to patch; see scripts/build/glue.mjs`);
    glue = glue.replace(pattern, replacement);
    return count;
  };
  const handleKinds = edit(/new FinalizationRegistry\(ptr => wasm\.(__wbg_\w+_free)\(ptr, 1\)\)/g, 'new FinalizationRegistry(({ ptr, exports }) => exports.$1(ptr, 1))', 'finalization registry');
  const registrations = edit(/(\w+Finalization)\.register\((\w+), \2\.__wbg_ptr, \2\)/g, '$1.register($2, { ptr: $2.__wbg_ptr, exports: wasm }, $2)', 'handle registration');
  if (/ptr => wasm\.__wbg_|Finalization\.register\((\w+), \1\.__wbg_ptr/.test(glue)) throw new Error('build: a glue finalizer was left unpatched; see scripts/build/glue.mjs');
  if (registrations < handleKinds) throw new Error(`build: ${handleKinds} finalizers but ${registrations} registrations in the glue; see scripts/build/glue.mjs`);
  edit(/^let wasmModule, wasmInstance, wasm;$/m, 'let wasmModule, wasmInstance, wasm;\nexport function __wbg_reset() { wasmModule = wasmInstance = wasm = undefined; }', 'instance variables');
  return { glue, handleKinds };
}

/** The glue's declarations with `__wbg_reset`. */
export function patchDeclarations(dts) {
  return `${dts}${RESET_DECLARATION}`;
}
