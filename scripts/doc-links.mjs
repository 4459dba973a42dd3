#!/usr/bin/env node
// The map stays true: every relative link and every backticked repository
// path in the docs a newcomer reads first names something that exists.
//
//   node scripts/doc-links.mjs            the repository's docs (see DOCS)
//   node scripts/doc-links.mjs FILE.md…   those files
//
// A link `[text](path#anchor)` (or `[ref]: path`, `href=`/`src=`) is resolved
// against its file's folder; its anchor, in a Markdown file, must be one of
// that file's headings (GitHub's slugs). A backticked word is a repository
// path when it has a `/` and its first segment is an entry of the repository
// root (`crates/mebo`, `reference/main.go`); `<placeholder>`, `*` and
// `{a,b}` stand for parts, so the path is checked up to the first of them,
// or each brace alternative. A path git ignores (a build's output such as
// `packages/mebo/wasm/`) counts as existing: the docs may name what the build
// makes. Fenced code blocks are skipped: they hold commands, not references.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The docs checked by default, relative to the root (globs as folder + suffix). */
export function defaultDocs(root) {
  const docs = ['ARCHITECTURE.md', 'README.md', 'CHANGELOG.md'];
  const inDir = (dir, keep) =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir))
          .filter(keep)
          .map((name) => join(dir, name))
      : [];
  docs.push(...inDir('docs', (n) => n.endsWith('.md')));
  docs.push(...inDir('docs/performance', (n) => n.endsWith('.md')));
  for (const parent of ['packages', 'crates', 'examples']) {
    docs.push(...inDir(parent, () => true).map((dir) => join(dir, 'README.md')));
  }
  docs.push('testdata/README.md', 'web-demo/README.md', 'bench/README.md', 'reference/README.md');
  return docs.filter((file) => existsSync(join(root, file)));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading) {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]*>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text's headings, duplicates numbered as GitHub does. */
export function anchors(text) {
  const seen = new Map();
  const out = new Set();
  for (const line of withoutFences(text)) {
    const m = line.text.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The lines outside fenced code blocks, each with its 1-based number. */
function withoutFences(text) {
  const lines = [];
  let fence;
  text.split('\n').forEach((line, i) => {
    const m = line.match(/^\s*(```+|~~~+)/);
    if (m) {
      if (!fence) fence = m[1][0];
      else if (m[1][0] === fence) fence = undefined;
      return;
    }
    if (!fence) lines.push({ text: line, number: i + 1 });
  });
  return lines;
}

/** Expand `{a,b}` alternatives and cut at the first `<…>` or glob. */
function candidates(path) {
  const brace = path.match(/\{([^{}]*)\}/);
  if (brace) {
    return brace[1].split(',').flatMap((alt) => candidates(path.slice(0, brace.index) + alt + path.slice(brace.index + brace[0].length)));
  }
  const cut = path.search(/[<*?]/);
  const kept = cut < 0 ? path : path.slice(0, path.lastIndexOf('/', cut) + 1);
  return [kept.replace(/\/+$/, '')];
}

/**
 * Every broken reference in `files` (paths relative to `root`):
 * `{ file, line, target, reason }`. `isIgnored(relativePath)` says whether the
 * repository ignores a path (then it may be missing).
 */
export function brokenLinks(root, files, { isIgnored = () => false } = {}) {
  const topLevel = new Set(readdirSync(root).filter((n) => !n.startsWith('.') && n !== 'node_modules' && !isIgnored(n)));
  const anchorCache = new Map();
  const anchorsOf = (abs) => {
    if (!anchorCache.has(abs)) anchorCache.set(abs, anchors(readFileSync(abs, 'utf8')));
    return anchorCache.get(abs);
  };
  const broken = [];
  for (const file of files) {
    const abs = join(root, file);
    const text = readFileSync(abs, 'utf8');
    const report = (line, target, reason) => broken.push({ file, line, target, reason });
    const exists = (path) => existsSync(path) || isIgnored(relative(root, path));
    for (const { text: line, number } of withoutFences(text)) {
      // Code spans first: a link inside one is text, and its path a path.
      const spans = [...line.matchAll(/(`+)(.+?)\1/g)];
      const prose = spans.reduce((s, m) => s.replace(m[0], ' '.repeat(m[0].length)), line);
      const links = [
        ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
        ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]),
        ...[...prose.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((m) => m[1]),
      ];
      for (const target of links) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
        const [pathPart, anchor] = target.split('#');
        const resolved = pathPart ? resolve(dirname(abs), decodeURIComponent(pathPart)) : abs;
        if (!resolved.startsWith(root)) {
          report(number, target, 'points outside the repository');
          continue;
        }
        if (!exists(resolved)) {
          report(number, target, 'no such file or folder');
          continue;
        }
        if (anchor && resolved.endsWith('.md') && existsSync(resolved) && statSync(resolved).isFile() && !anchorsOf(resolved).has(anchor)) {
          report(number, target, `no heading with anchor #${anchor}`);
        }
      }
      for (const m of spans) {
        const word = m[2].trim();
        if (!/^[\w.@-]+\/[\w.@/<>*?{},-]*$/.test(word)) continue;
        if (!topLevel.has(word.split('/')[0])) continue;
        for (const path of candidates(word)) {
          if (!exists(join(root, path))) report(number, word, 'no such repository path');
        }
      }
    }
  }
  return broken;
}

/** Paths the repository's git ignores, asked once per path. */
function gitIgnored(root) {
  const cache = new Map();
  return (path) => {
    if (!cache.has(path)) {
      // A missing folder matches a `dir/` pattern only when named as one.
      const ignored = (p) => spawnSync('git', ['check-ignore', '-q', '--', p], { cwd: root }).status === 0;
      cache.set(path, ignored(path) || ignored(`${path}/`));
    }
    return cache.get(path);
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = process.argv.length > 2 ? process.argv.slice(2).map((f) => relative(ROOT, resolve(f))) : defaultDocs(ROOT);
  const broken = brokenLinks(ROOT, files, { isIgnored: gitIgnored(ROOT) });
  for (const b of broken) console.error(`${b.file}:${b.line}: ${b.target}: ${b.reason}`);
  if (broken.length) {
    console.error(`doc-links: ${broken.length} broken reference(s) in ${files.length} files; fix the doc or the path`);
    process.exit(1);
  }
  console.log(`doc-links: every link and repository path in ${files.length} files exists`);
}
