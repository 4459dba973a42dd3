// The parts of the light core (`mebo/decode` in a page): which a blob needs,
// read from its header, and loading them once. `mebo`'s builds and
// `init({ parts: 'all' })` hold every part, so there nothing is ever missing.
// The loader itself is init.ts's (it compiles modules); it registers here,
// below the blob classes that call `ensureParts`.

import { needsZstd } from '../wasm/mebo_wasm.js';
import { MeboError } from './errors.js';
import { instance } from './module.js';
import { zstdPartLoaded } from './zstd-part.js';

/** A module the light core loads the first time a blob needs it: libzstd's decoder. */
export type Part = 'zstd';

/** What compiles and instantiates a part (init.ts). */
type PartLoader = (part: Part) => Promise<void>;
let loader: PartLoader | undefined;
const loading = new Map<Part, Promise<void>>();

/** @internal init.ts registers how a part is loaded. */
export function setPartLoader(load: PartLoader): void {
  loader = load;
}

/**
 * The parts a blob needs, from its first four bytes: zstd when a payload's
 * codec says zstd, or a numeric blob has tags (its tag payload is always
 * zstd); read by the core (`mebo::uses_compression`). Nothing for bytes that
 * are no blob: opening them fails with the core's error.
 */
export function partsNeeded(bytes: Uint8Array): Part[] {
  return needsZstd(bytes.subarray(0, 4)) ? ['zstd'] : [];
}

function loaded(part: Part): boolean {
  return part === 'zstd' && zstdPartLoaded();
}

/** The parts `bytes` needs that the module in use lacks (none unless it is the light core). */
function missing(bytes: Uint8Array): Part[] {
  if (!instance.loaded?.light) return [];
  return partsNeeded(bytes).filter((part) => !loaded(part));
}

/** @internal Whether the module in use has every part `bytes` needs. */
export function hasParts(bytes: Uint8Array): boolean {
  return missing(bytes).length === 0;
}

/**
 * @internal Throws MISSING_PART when the light core lacks a part `bytes`
 * needs, naming it and `load()` (`kind` is the class the caller opens).
 */
export function checkParts(bytes: Uint8Array, kind: string): void {
  const [part] = missing(bytes);
  if (part === undefined) return;
  throw new MeboError(
    'MISSING_PART',
    `this blob needs mebo's ${part} part, which is not loaded: open it with \`await ${kind}.load(bytes)\`, or load every part up front with \`await init({ parts: 'all' })\``,
  );
}

/**
 * @internal Load the parts `bytes` needs (each once: concurrent calls share
 * one load; a failed load is retried by the next call). A part that cannot be
 * loaded is WASM_LOAD naming it; blobs that do not need it still open.
 */
export async function ensureParts(bytes: Uint8Array): Promise<void> {
  for (const part of missing(bytes)) {
    let pending = loading.get(part);
    if (pending === undefined) {
      if (loader === undefined) throw new MeboError('WASM_LOAD', `the ${part} part has no loader here`);
      pending = loader(part).catch((error: unknown) => {
        loading.delete(part);
        const detail = error instanceof Error ? error.message : String(error);
        throw new MeboError('WASM_LOAD', `loading mebo's ${part} part: ${detail}`, { cause: error });
      });
      loading.set(part, pending);
    }
    await pending;
  }
}
