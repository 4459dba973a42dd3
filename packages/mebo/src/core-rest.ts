// The light core's rest: the functions the build split off the core
// (scripts/build/split.mjs), a second module that shares the core's memory,
// tables and globals. The core keeps what numeric blobs without zstd run;
// each function moved is reached through a table slot that instantiating the
// rest fills, and one whose slot is still empty first calls `loadRest`. The
// core's glue imports it from here (build-sdk.mjs resolves its
// `mebo-core-rest` import to this file), so, like zstd-part.ts, this module
// imports nothing of the SDK: the rest's compiled module is kept here, and
// module.ts registers how it is instantiated.

let compiled: WebAssembly.Module | undefined;
let instantiate: ((rest: WebAssembly.Module | undefined) => void) | undefined;

/** @internal The rest's compiled module, once fetched (init.ts). */
export function setRestModule(module: WebAssembly.Module): void {
  compiled = module;
}

/** @internal Whether the rest is compiled: a stub of the core then instantiates it synchronously. */
export function restCompiled(): boolean {
  return compiled !== undefined;
}

/** @internal How the rest is instantiated for the core in use (module.ts). */
export function setRestInstantiation(how: (rest: WebAssembly.Module | undefined) => void): void {
  instantiate = how;
}

/** The core's import, called by a function of the rest whose slot is empty. */
export function loadRest(): void {
  if (instantiate === undefined) throw new Error("mebo: nothing instantiates the light core's rest");
  instantiate(compiled);
}
