#!/usr/bin/env node
// Fails on an import cycle among a folder's modules: the SDK is built in
// layers (module state, then blobs and sets, then the loader), and the
// dashboard in components, and a cycle means a layer reaches up. Every
// relative import counts, type-only ones too (they tie declarations together).
//
//   node scripts/import-cycles.mjs DIR...     exit 1 and print the cycle, if any

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = /\.(ts|mts|js|mjs)$/;
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

/** Every source file under `dir`, recursively, but declaration files. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `./x.js` written in TypeScript means `./x.ts`: the file the import names, as it is on disk. */
function target(from, specifier, files) {
  const path = resolve(dirname(from), specifier);
  return [path, path.replace(/\.js$/, '.ts'), path.replace(/\.mjs$/, '.mts')].find((p) => files.has(p));
}

/** The import graph of `dirs`: file -> files it imports (relative imports inside the graph only). */
export function importGraph(dirs) {
  const files = new Set(dirs.flatMap((dir) => sources(resolve(dir))));
  const graph = new Map();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const edges = new Set();
    for (const match of text.matchAll(IMPORT)) {
      const to = target(file, match[1], files);
      if (to) edges.add(to);
    }
    graph.set(file, [...edges]);
  }
  return graph;
}

/** A cycle of `graph` (a list of nodes, the first repeated at the end), or undefined. */
export function findCycle(graph) {
  const state = new Map(); // node -> 'open' while on the path, 'done' after
  const path = [];
  const visit = (node) => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') return [...path.slice(path.indexOf(next)), next];
      if (!state.has(next)) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    if (state.has(node)) continue;
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let failed = false;
  for (const dir of process.argv.slice(2)) {
    const cycle = findCycle(importGraph([dir]));
    if (cycle) {
      failed = true;
      console.error(`import cycle in ${dir}: ${cycle.map((f) => relative(process.cwd(), f)).join(' -> ')}`);
    } else console.log(`no import cycle in ${dir}`);
  }
  process.exit(failed ? 1 : 0);
}
