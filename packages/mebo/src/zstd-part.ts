// The light core's zstd part (crates/mebo-zstd): libzstd's decoder in a
// module of its own, loaded the first time a blob has a zstd payload. The
// core's glue imports `zstdDecompress` from here (build-sdk.mjs resolves its
// `mebo-zstd-part` import to this file), so this module imports nothing of
// the SDK: only the part's own glue.

import instantiatePart, { decompress } from '../wasm/mebo_zstd.js';

let instantiated = false;

/** @internal Whether the part is instantiated. */
export function zstdPartLoaded(): boolean {
  return instantiated;
}

/** @internal Instantiate the part from its compiled module (once). */
export async function installZstdPart(module: WebAssembly.Module): Promise<void> {
  if (instantiated) return;
  await instantiatePart({ module_or_path: module });
  instantiated = true;
}

/**
 * @internal The core's zstd decoder (its import): the payload copied into
 * the part, its output copied out. Throws what the core reads back into its
 * own error: `[code, number, detail]`.
 */
export function zstdDecompress(data: Uint8Array, cap: number): Uint8Array {
  if (!instantiated) throw ['MISSING_PART', 0, ''];
  try {
    return decompress(data, cap);
  } catch (thrown) {
    if (Array.isArray(thrown)) throw thrown;
    // A trap in the part (it cannot allocate what the frame needs).
    throw ['DECOMPRESS', 0, `the zstd part failed: ${thrown instanceof Error ? thrown.message : String(thrown)}`];
  }
}
