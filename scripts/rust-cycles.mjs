#!/usr/bin/env node
// Fails on a circle among a Rust crate's modules: each item lives in one
// module and its users import it, never the other way round too. A circle
// means an item shared by two modules lives in one of them; its home is the
// parent module or a file of its own.
//
//   node scripts/rust-cycles.mjs [CRATE_SRC_DIR...]   exit 1 and print the circle, if any
//                                                    (default: every crates/*/src)
//
// An edge A -> B is a path in A (a `use`, or an expression such as
// `super::delta::long_varint(..)`) that names an item of B: `crate::`,
// `super::` and `self::` paths, and paths through A's own child modules.
// A module's use of its descendants does not count: a parent declares and
// re-exports its children (`pub use delta::DeltaTimestamps`), so a child may
// take a shared item from its parent. `#[cfg(test)]` modules are left out.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCycle } from './import-cycles.mjs';

/** Every `.rs` file under `src`, with its module path (`a/b.rs` and `a/b/mod.rs` are `['a', 'b']`). */
function modules(src) {
  const out = [];
  const walk = (dir, path) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = join(dir, entry.name);
      if (entry.isDirectory()) walk(file, [...path, entry.name]);
      else if (entry.name.endsWith('.rs')) {
        const name = entry.name.slice(0, -3);
        const root = path.length === 0 && (name === 'lib' || name === 'main');
        out.push({ file, path: root || name === 'mod' ? path : [...path, name] });
      }
    }
  };
  walk(src, []);
  return out;
}

/** The code without comments, strings and character literals (each replaced by spaces, so offsets hold). */
export function stripRust(text) {
  const blank = (m) => m.replace(/[^\n]/g, ' ');
  return text
    .replace(/\/\*[\s\S]*?\*\//g, blank)
    .replace(/r(#*)"[\s\S]*?"\1/g, blank)
    .replace(/"(?:\\[\s\S]|[^"\\])*"/g, blank)
    .replace(/'(?:\\.|[^'\\\n])'/g, blank)
    .replace(/\/\/[^\n]*/g, blank);
}

/**
 * The inline modules of stripped code: `{ name, start, end, test }` for each
 * `mod name { … }`, `test` when a `#[cfg(test)]` stands before it.
 */
function inlineModules(code) {
  const found = [];
  for (const m of code.matchAll(/(#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*)?(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*\{/g)) {
    let depth = 0;
    let end = code.length;
    for (let i = m.index + m[0].length - 1; i < code.length; i++) {
      if (code[i] === '{') depth++;
      else if (code[i] === '}' && --depth === 0) {
        end = i + 1;
        break;
      }
    }
    found.push({ name: m[2], start: m.index, end, test: Boolean(m[1]) });
  }
  return found;
}

/** The full paths of a `use` tree: `a::{b, c::{d, e}}` -> `a::b`, `a::c::d`, `a::c::e`. */
export function expandUse(tree) {
  tree = tree.replace(/\s+as\s+\w+/g, '').replace(/\s+/g, '');
  const open = tree.indexOf('{');
  if (open < 0) return [tree].filter(Boolean);
  const prefix = tree.slice(0, open);
  const inner = tree.slice(open + 1, tree.lastIndexOf('}'));
  const parts = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i <= inner.length; i++) {
    const c = inner[i];
    if (c === '{') depth++;
    else if (c === '}') depth--;
    else if ((c === ',' || i === inner.length) && depth === 0) {
      if (i > from) parts.push(inner.slice(from, i));
      from = i + 1;
    }
  }
  return parts.flatMap((part) => expandUse(part === 'self' ? prefix.replace(/::$/, '') : prefix + part));
}

/** The module graph of one crate's `src`: file -> files whose items it names. */
export function moduleGraph(src) {
  const mods = modules(resolve(src));
  const byPath = new Map(mods.map((m) => [m.path.join('::'), m]));
  const isModule = (path) => byPath.has(path.join('::'));
  const graph = new Map(mods.map((m) => [m.file, new Set()]));
  for (const mod of mods) {
    const code = stripRust(readFileSync(mod.file, 'utf8'));
    const inline = inlineModules(code);
    const scopeAt = (offset) => {
      const scope = inline.filter((m) => m.start <= offset && offset < m.end);
      return { test: scope.some((m) => m.test), path: [...mod.path, ...scope.map((m) => m.name)] };
    };
    const paths = [];
    const uses = /\buse\s+([^;]+);/g;
    for (const m of code.matchAll(uses)) for (const p of expandUse(m[1])) paths.push({ path: p, at: m.index });
    const rest = code.replace(uses, (m) => ' '.repeat(m.length));
    for (const m of rest.matchAll(/\b(?:crate|super|self)(?:\s*::\s*\w+)+/g)) paths.push({ path: m[0].replace(/\s+/g, ''), at: m.index });
    for (const { path, at } of paths) {
      const scope = scopeAt(at);
      if (scope.test) continue;
      const target = resolvePath(path.split('::'), scope.path, isModule);
      if (!target) continue;
      // A module's own children and their descendants: declared and faced by it.
      const descendant = target.length > mod.path.length && mod.path.every((s, i) => target[i] === s);
      const file = byPath.get(target.join('::'))?.file;
      if (file && file !== mod.file && !descendant) graph.get(mod.file).add(file);
    }
  }
  return new Map([...graph].map(([file, edges]) => [file, [...edges]]));
}

/** The module a path names an item of, from the module `here`; undefined for another crate's. */
function resolvePath(segments, here, isModule) {
  let at;
  let i = 0;
  if (segments[0] === 'crate') [at, i] = [[], 1];
  else if (segments[0] === 'self') [at, i] = [here, 1];
  else if (segments[0] === 'super') {
    at = here;
    while (segments[i] === 'super') [at, i] = [at.slice(0, -1), i + 1];
  } else if (isModule([...here, segments[0]])) at = here;
  else return undefined;
  while (i < segments.length && isModule([...at, segments[i]])) at = [...at, segments[i++]];
  // The module an inline module lives in, when `at` is one (x86 inside delta_simd.rs).
  while (at.length && !isModule(at)) at = at.slice(0, -1);
  return at;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let failed = false;
  const crates = join(fileURLToPath(new URL('..', import.meta.url)), 'crates');
  const dirs = process.argv.length > 2 ? process.argv.slice(2) : readdirSync(crates).map((c) => join(crates, c, 'src')).filter((d) => existsSync(d));
  for (const dir of dirs) {
    const cycle = findCycle(moduleGraph(dir));
    if (cycle) {
      failed = true;
      console.error(`module circle in ${dir}: ${cycle.map((f) => relative(process.cwd(), f)).join(' -> ')}`);
      console.error('give the item both take a home of its own: the parent module or a file of its own');
    } else console.log(`no module circle in ${dir}`);
  }
  process.exit(failed ? 1 : 0);
}
