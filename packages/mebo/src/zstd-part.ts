// The light core's zstd part (crates/mebo-zstd): a zstd decoder in a
// module of its own, loaded the first time a blob has a zstd payload. The
// core's glue imports `zstdDecompress` from here (build-sdk.mjs resolves its
// `mebo-zstd-part` import to this file), so this module imports nothing of
// the SDK. The part has no wasm-bindgen glue: its exports are hand-written
// (crates/mebo-zstd/src/exports.rs) and read here.

/** The part's exports. */
interface PartExports {
  memory: WebAssembly.Memory;
  /** Empties the part's arena; room for `len` payload bytes, 0 when its memory cannot grow. */
  input(len: number): number;
  /** Decodes the payload; one of the statuses below. */
  decompress(cap: number): number;
  output_ptr(): number;
  output_len(): number;
  /** SIZE_CAP: the size reached; OUT_OF_MEMORY: the bytes asked; DECOMPRESS: the byte of the payload where the failing frame, block or section starts. */
  number(): number;
  detail_ptr(): number;
  detail_len(): number;
}

// `decompress`'s statuses, as exports.rs numbers them, and the core's codes.
const CODES = ['', 'SIZE_CAP', 'OUT_OF_MEMORY', 'DECOMPRESS'] as const;

let part: PartExports | undefined;

/** @internal Whether the part is instantiated. */
export function zstdPartLoaded(): boolean {
  return part !== undefined;
}

/** @internal Instantiate the part from its compiled module (once). */
export async function installZstdPart(module: WebAssembly.Module): Promise<void> {
  if (part !== undefined) return;
  const instance = await WebAssembly.instantiate(module, {});
  part = instance.exports as unknown as PartExports;
}

/**
 * @internal The core's zstd decoder (its import): the payload copied into
 * the part, its output returned as a view of the part's memory, good until
 * the part's next call (the core's glue copies it at once). Throws what the core reads back into its
 * own error: `[code, number, detail]`.
 */
export function zstdDecompress(data: Uint8Array, cap: number): Uint8Array {
  if (part === undefined) throw ['MISSING_PART', 0, ''];
  try {
    return decompress(part, data, cap);
  } catch (thrown) {
    if (Array.isArray(thrown)) throw thrown;
    // A trap in the part (a bug: every failure it knows of is a status).
    throw ['DECOMPRESS', 0, `the zstd part failed: ${thrown instanceof Error ? thrown.message : String(thrown)}`];
  }
}

function decompress(part: PartExports, data: Uint8Array, cap: number): Uint8Array {
  const at = part.input(data.length);
  if (at === 0) throw ['OUT_OF_MEMORY', data.length, ''];
  // The memory's buffer is read after each call: growing it detaches the old one.
  new Uint8Array(part.memory.buffer, at, data.length).set(data);
  const status = part.decompress(cap);
  // The output in place, not copied: the core's glue copies it into its own
  // memory before anything calls the part again (a view is only good until then).
  if (status === 0) return new Uint8Array(part.memory.buffer, part.output_ptr(), part.output_len());
  const code = CODES[status] ?? 'DECOMPRESS';
  if (code !== 'DECOMPRESS') throw [code, part.number(), ''];
  // The check that failed, and (the part's number) where in the payload.
  const detail = new TextDecoder().decode(new Uint8Array(part.memory.buffer, part.detail_ptr(), part.detail_len()));
  throw [code, 0, `${detail} at byte ${part.number()}`];
}
