// Sanity checks of what the build produced, before anything is installed.
// Old binaryen (Debian bookworm's 108) rewrites the export of wasm-bindgen's
// externref table to point at the function table, so every optimized module
// is instantiated and its table grown as the glue does at init.

/**
 * Check a module: it exports the decoder, it exports an encoder exactly when
 * `encoders` (the decode-only build must have none), it imports only
 * functions, and it instantiates with stub imports and grows its externref
 * table. Throws an Error saying what is wrong.
 */
export async function checkModule(bytes, { encoders, handles = true }) {
  const module = await WebAssembly.compile(bytes);
  const names = WebAssembly.Module.exports(module).map((e) => e.name);
  if (handles && !names.includes('numericblobhandle_decodeAll')) throw new Error('no numericblobhandle_decodeAll export');
  if (names.some((name) => /encoderhandle/i.test(name)) !== encoders) throw new Error(encoders ? 'no encoder exports' : 'encoder exports in a decode-only build');
  const imports = {};
  for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
    if (kind !== 'function') throw new Error(`unexpected ${kind} import ${from}.${name}`);
    (imports[from] ??= {})[name] = () => {};
  }
  const { exports } = await WebAssembly.instantiate(module, imports);
  exports.__wbindgen_externrefs?.grow(4);
}

/**
 * Check a module's glue: the simd and scalar builds must have produced the
 * same glue (the SDK ships one for both .wasm files), and a decode-only glue
 * has no encoder class. `glues` holds the glue of each build that was made.
 */
export function checkGlue(glues, { encoders }) {
  const [first, ...others] = glues;
  if (others.some((glue) => glue !== first)) throw new Error('the glue differs between the simd and scalar builds; one glue cannot serve both');
  if (!encoders && /EncoderHandle/.test(first)) throw new Error('the decode-only glue has encoder classes');
}

/**
 * Check that the light core's glue also serves the decode-only builds
 * (`mebo/decode` bundles it for both): it must be the decode-only glue plus
 * the core's import of the zstd part and the imports only that path uses,
 * and the namespace of the core's rest (`mebo-core-rest`, whose `loadRest`
 * the split core imports): entries of the import object a decode-only
 * build does not ask for, which WebAssembly ignores; nothing else. The
 * glues are wasm-bindgen's output, before the edit for reset().
 */
export function checkCoreGlue(core, decode) {
  if (!core.includes("from 'mebo-zstd-part'")) throw new Error("the light core's glue has no zstd part import");
  const rest = /^import \* as (\w+) from "mebo-core-rest"$/m.exec(core);
  if (!rest || !core.includes(`        "mebo-core-rest": ${rest[1]},\n`)) throw new Error("the light core's glue does not import the namespace of the core's rest");
  const entry = /^(\s+)(__w[A-Za-z0-9_]+): function/;
  const decodeImports = new Set(decode.split('\n').flatMap((line) => entry.exec(line)?.[2] ?? []));
  const lines = core.replaceAll('mebo_core', 'mebo_decode').split('\n');
  const kept = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith("import { zstdDecompress } from 'mebo-zstd-part';")) {
      if (lines[i + 1] === '') i++; // and the blank line after the import
      continue;
    }
    if (lines[i] === rest[0]) {
      if (lines[i + 1] === '') i++;
      continue;
    }
    if (lines[i] === `        "mebo-core-rest": ${rest[1]},`) continue;
    const match = entry.exec(lines[i]);
    if (match && !decodeImports.has(match[2])) {
      // The entry, to its closing line at the same indent.
      while (i < lines.length && !(lines[i].startsWith(`${match[1]}}`) && lines[i].trimEnd().endsWith('},'))) i++;
      continue;
    }
    kept.push(lines[i]);
  }
  const left = kept.join('\n');
  if (left === decode) return;
  const a = left.split('\n');
  const b = decode.split('\n');
  const at = a.findIndex((line, i) => line !== b[i]);
  throw new Error(`the light core's glue is not the decode-only glue plus its zstd imports (first difference at line ${at + 1}: ${JSON.stringify(a[at])} vs ${JSON.stringify(b[at])})`);
}
