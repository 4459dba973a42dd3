// The parts of the light core (`mebo/decode` in a page): which a blob needs,
// read from its header, and loading them once. The core holds what numeric
// blobs without zstd run; the rest of its functions are a part (the build
// splits them off: core-rest.ts), and so is the zstd decoder (zstd-part.ts).
// `mebo`'s builds and `init({ parts: 'all' })` hold every part, so there
// nothing is ever missing. The loader itself is init.ts's (it compiles
// modules); it registers here, below the blob classes that call `ensureParts`.

import { blobKind, needsZstd } from '../wasm/mebo_wasm.js';
import { restCompiled } from './core-rest.js';
import { MeboError } from './errors.js';
import { coreIsSplit, instance } from './module.js';
import { zstdPartLoaded } from './zstd-part.js';

/**
 * A module the light core loads the first time a blob needs it: its rest
 * (text blobs, sets, zstd payloads' path), or the zstd decoder.
 */
export type Part = 'rest' | 'zstd';

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
 * zstd), read by the core (`mebo::uses_compression`); the rest for those and
 * for a text blob; and the rest for a blob set (`set`). Nothing for bytes
 * that are no blob: opening them fails with the core's error.
 */
export function partsNeeded(bytes: Uint8Array, set = false): Part[] {
  const zstd = needsZstd(bytes.subarray(0, 4));
  const rest = set || zstd || blobKind(bytes.subarray(0, 2)) === 'text';
  return [...(rest ? (['rest'] as const) : []), ...(zstd ? (['zstd'] as const) : [])];
}

function loaded(part: Part): boolean {
  return part === 'zstd' ? zstdPartLoaded() : restCompiled();
}

/** Of `parts`, those the module in use lacks (none unless it is the light core; no rest unless it is split). */
function lacking(parts: Part[]): Part[] {
  if (!instance.loaded?.light) return [];
  return parts.filter((part) => !loaded(part) && (part !== 'rest' || coreIsSplit()));
}

/** The parts `bytes` needs that the module in use lacks; every other build than the light core reads no header for it. */
function lackingFor(bytes: Uint8Array, set = false): Part[] {
  return instance.loaded?.light ? lacking(partsNeeded(bytes, set)) : [];
}

/** @internal Whether the module in use has every part `bytes` needs. */
export function hasParts(bytes: Uint8Array): boolean {
  return lackingFor(bytes).length === 0;
}

/**
 * @internal Throws MISSING_PART when the light core lacks a part `bytes`
 * needs, naming it and `load()` (`kind` is the class the caller opens; `set`
 * when it opens a blob set).
 */
export function checkParts(bytes: Uint8Array, kind: string, set = false): void {
  const parts = lackingFor(bytes, set);
  if (parts.length === 0) return;
  const named = `${parts.join(' and ')} part${parts.length > 1 ? 's' : ''}, which ${parts.length > 1 ? 'are' : 'is'}`;
  throw new MeboError(
    'MISSING_PART',
    `this ${set ? 'blob set' : 'blob'} needs mebo's ${named} not loaded: open it with \`await ${kind}.load(${set ? 'blobs' : 'bytes'})\`, or load every part up front with \`await init({ parts: 'all' })\``,
  );
}

/** @internal Whether the module in use has its rest (every build but a split core before it). */
export function restReady(): boolean {
  return lacking(['rest']).length === 0;
}

/**
 * @internal Throws MISSING_PART when `what`, a call of a split core's rest
 * (over a whole blob, or a chart's), comes before the rest is loaded.
 */
export function checkRest(what: string): void {
  if (restReady()) return;
  throw new MeboError(
    'MISSING_PART',
    `${what} needs mebo's rest part, which is not loaded yet: \`await init({ parts: 'all' })\` loads it (a load() after the first one waits for it)`,
  );
}

/** A split core's first blob has been asked for: the loads after it wait for the rest. */
let restFollows = false;

/**
 * @internal Load the parts `bytes` needs (`set`: for a blob set). A split
 * core's first blob is read from the core alone, and its rest is fetched
 * once that blob is open; every later load waits for the rest (and opens a
 * blob that does not need it even when the rest cannot be loaded), so that
 * calls over whole blobs, and paths the core alone does not run, find it.
 */
export async function ensureParts(bytes: Uint8Array, set = false): Promise<void> {
  if (!instance.loaded?.light) return;
  const needed = partsNeeded(bytes, set);
  if (!needed.includes('rest') && lacking(['rest']).length > 0) {
    if (restFollows) await loadMissingParts(['rest']).catch(() => {});
    else {
      restFollows = true;
      setTimeout(() => void loadMissingParts(['rest']).catch(() => {}), 0);
    }
  }
  await loadMissingParts(needed);
}

/**
 * @internal `open()` once the parts `bytes` needs are loaded. Should the
 * core alone reach a function of its rest while the first blob is opened
 * (an error's path the build's profile did not see), the rest is loaded and
 * the blob opened again, in the instance that replaces the one the call left.
 */
export async function openWithParts<T>(bytes: Uint8Array, open: () => T): Promise<T> {
  await ensureParts(bytes);
  try {
    return open();
  } catch (error) {
    if (!(error instanceof MeboError) || error.code !== 'MISSING_PART' || lacking(['rest']).length === 0) throw error;
    await loadMissingParts(['rest']);
    return open();
  }
}

/**
 * @internal Load each of `parts` the module in use lacks (each once:
 * concurrent calls share one load; a failed load is retried by the next
 * call). A part that cannot be loaded is WASM_LOAD naming it; blobs that do
 * not need it still open.
 */
export async function loadMissingParts(parts: Part[]): Promise<void> {
  for (const part of lacking(parts)) {
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
