#!/usr/bin/env node
// Releases ready: what `npm publish` and `cargo publish` would upload is whole
// and holds nothing else (after `npm run build`).
//
//   - packages/mebo: `npm pack --dry-run` lists every file that `exports`,
//     `main`, `module`, `types`, `typesVersions` and `bin` name, the README and
//     the licenses, and no sources or tests; `npm publish --dry-run` passes.
//   - crates/mebo: `cargo package` (offline: the index is not needed to
//     package and build the crate from its own tarball) lists its sources,
//     README and license and no tests, and builds.
//
// Both packages' metadata is checked for the fields a registry page shows.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

/** Every file path a package.json names for its users, without `./`. */
export function namedFiles(pkg) {
  const out = new Set();
  const walk = (value) => {
    if (typeof value === 'string') out.add(value.replace(/^\.\//, ''));
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(pkg.exports);
  walk(pkg.main);
  walk(pkg.module);
  walk(pkg.types);
  walk(pkg.typesVersions);
  walk(pkg.bin);
  return [...out].filter((path) => !path.includes('*'));
}

/** What is wrong with an npm package's file list and metadata (empty: nothing). */
export function npmProblems(pkg, files) {
  const listed = new Set(files);
  const problems = [];
  for (const path of namedFiles(pkg)) if (!listed.has(path)) problems.push(`${path} is named by package.json but not packed`);
  for (const path of ['README.md', 'LICENSE', 'package.json']) if (!listed.has(path)) problems.push(`${path} is not packed`);
  for (const path of files) if (/^(src|test|cli)\/|\.test\.|\.map$/.test(path)) problems.push(`${path} is packed but no user needs it`);
  for (const field of ['description', 'license', 'keywords', 'engines', 'exports', 'types']) {
    if (pkg[field] === undefined) problems.push(`package.json has no "${field}"`);
  }
  return problems;
}

/** What is wrong with a crate's file list (from `cargo package --list`). */
export function crateProblems(files) {
  const problems = [];
  for (const path of ['src/lib.rs', 'README.md', 'LICENSE', 'Cargo.toml']) if (!files.includes(path)) problems.push(`${path} is not packaged`);
  for (const path of files) if (/^(tests|examples|benches)\//.test(path)) problems.push(`${path} is packaged but no user builds it`);
  return problems;
}

function capture(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (result.status !== 0) {
    console.error(`$ ${command} ${args.join(' ')}\n${result.stdout}${result.stderr}`);
    console.error(`publish-check: ${command} ${args[0]} failed`);
    process.exit(1);
  }
  return result.stdout;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const packageDir = join(ROOT, 'packages/mebo');
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const [packed] = JSON.parse(capture('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], packageDir));
  const problems = npmProblems(
    pkg,
    packed.files.map((f) => f.path),
  );
  capture('npm', ['publish', '--dry-run', '--ignore-scripts'], packageDir);

  const crateFiles = capture('cargo', ['package', '-p', 'mebo', '--list', '--allow-dirty', '--offline'], ROOT).split('\n').filter(Boolean);
  problems.push(...crateProblems(crateFiles).map((p) => `crates/mebo: ${p}`));
  const manifest = readFileSync(join(ROOT, 'crates/mebo/Cargo.toml'), 'utf8');
  for (const field of ['description', 'readme', 'documentation', 'keywords', 'categories']) {
    if (!new RegExp(`^${field} *=`, 'm').test(manifest)) problems.push(`crates/mebo/Cargo.toml has no ${field}`);
  }
  // Builds the crate from its own package: a path outside it would fail here.
  capture('cargo', ['package', '-p', 'mebo', '--allow-dirty', '--offline'], ROOT);

  if (problems.length) {
    for (const p of problems) console.error(`publish-check: ${p}`);
    process.exit(1);
  }
  console.log(`publish-check: mebo@${pkg.version} packs ${packed.files.length} files, the crate ${crateFiles.length}; both dry runs pass`);
}
