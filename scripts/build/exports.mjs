// Removing the exports a module's glue never calls. wasm-bindgen keeps every
// export of the cdylib, among them zstd-sys's `#[no_mangle]` C shims (malloc,
// memcpy, …, and a qsort with five monomorphized sorts that only zstd's
// dictionary builder calls). The glue names every export it uses; the others
// go, so wasm-opt can drop what only they kept alive.

/** Every identifier-like word of the glue: the export names it can call. */
export function namesIn(glue) {
  return new Set(glue.match(/[A-Za-z_$][\w$]*/g));
}

/** Read an unsigned LEB128 at `at`: [value, offset after it]. */
export function readLeb(bytes, at) {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    if (at >= bytes.length) throw new Error('build: a LEB128 number runs past the end of the module');
    byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}

/** `value` as an unsigned LEB128. */
export function leb(value) {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return Uint8Array.from(out);
}

/**
 * The module with only the exports `keep(name)` accepts: its export section
 * (id 7: a count, then per export its name, a kind byte and an index) is
 * rewritten, every other section copied as it is. Returns the new bytes and
 * the names removed.
 */
export function stripExports(bytes, keep) {
  const parts = [bytes.subarray(0, 8)];
  const removed = [];
  let at = 8;
  while (at < bytes.length) {
    const [size, start] = readLeb(bytes, at + 1);
    const end = start + size;
    if (end > bytes.length) throw new Error('build: a section runs past the end of the module');
    if (bytes[at] !== 7) {
      parts.push(bytes.subarray(at, end));
      at = end;
      continue;
    }
    let [count, p] = readLeb(bytes, start);
    const kept = [];
    for (; count > 0; count--) {
      const [length, nameAt] = readLeb(bytes, p);
      const name = new TextDecoder().decode(bytes.subarray(nameAt, nameAt + length));
      const [, next] = readLeb(bytes, nameAt + length + 1); // the kind byte, then the index
      if (keep(name)) kept.push(bytes.subarray(p, next));
      else removed.push(name);
      p = next;
    }
    if (p !== end) throw new Error('build: cannot read the export section');
    const payload = Buffer.concat([leb(kept.length), ...kept]);
    parts.push(Uint8Array.of(7), leb(payload.length), payload);
    at = end;
  }
  return { bytes: Buffer.concat(parts), removed };
}
