// What the `workerd` entries (../entries/workerd.ts, ../entries/decode-workerd.ts) share: the
// options init() gets when a Worker calls it without a module. Imports
// nothing, so each entry bundles it without a second copy of the SDK.

/** @internal `options` with the imported simd build filled in, unless the caller passes a module or asks for the scalar build. */
export function withImportedModule<O>(options: O, module: object): O {
  if (typeof options !== 'object' || options === null) return options;
  const given = options as { wasm?: unknown; variant?: unknown };
  if (given.wasm !== undefined || given.variant === 'scalar') return options;
  return { ...options, wasm: module, variant: 'simd' };
}
