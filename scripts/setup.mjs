#!/usr/bin/env node
// Installs what a fresh machine needs to build and test the workspace. Every
// step checks first and does nothing when its tool is already there, so the
// script is safe to run before every build.
//
//   rustup target wasm32-unknown-unknown, components rustfmt and clippy
//   clang (zstd's C sources for wasm) and chromium, via apt-get
//   wasm-bindgen-cli at the version Cargo.lock pins for the wasm-bindgen crate
//   pnpm at the version the root package.json pins, then the JS dependencies
//   (among them binaryen's wasm-opt, pinned: Debian bookworm's binaryen 108
//   corrupts wasm-bindgen's externref table, see scripts/build/check.mjs)

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, run, output, has, lockedVersion } from './lib.mjs';

function step(message) {
  console.log(`setup: ${message}`);
}

function ensureWasmTarget() {
  const installed = output('rustup', ['target', 'list', '--installed']) ?? '';
  if (installed.split('\n').includes('wasm32-unknown-unknown')) return;
  step('adding rust target wasm32-unknown-unknown');
  run('rustup', ['target', 'add', 'wasm32-unknown-unknown']);
}

function ensureRustComponents() {
  // npm test's gates: cargo fmt --check and cargo clippy.
  const installed = output('rustup', ['component', 'list', '--installed']) ?? '';
  const missing = ['rustfmt', 'clippy'].filter((c) => !installed.split('\n').some((line) => line.startsWith(`${c}-`)));
  if (missing.length === 0) return;
  step(`adding rust components ${missing.join(', ')}`);
  run('rustup', ['component', 'add', ...missing]);
}

function ensureAptPackages() {
  // command on PATH -> Debian package that provides it (chromium: the
  // headless browser of the demo check, the bench and the browser tests)
  const wanted = { clang: 'clang', chromium: 'chromium' };
  const missing = Object.entries(wanted)
    .filter(([command]) => !has(command))
    .map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  if (!has('apt-get')) {
    step(`no apt-get: install ${missing.join(', ')} yourself (clang compiles zstd's C sources for wasm)`);
    return;
  }
  // root runs apt-get itself; anyone else through sudo
  const aptGet = (args, options) =>
    process.getuid?.() === 0 ? run('apt-get', args, options) : run('sudo', ['apt-get', ...args], options);
  step(`installing ${missing.join(', ')} with apt-get`);
  aptGet(['update']);
  aptGet(['install', '-y', '--no-install-recommends', ...missing], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

function ensureWasmBindgen() {
  const wanted = lockedVersion('wasm-bindgen');
  const current = output('wasm-bindgen', ['--version'])?.trim().split(' ').pop();
  if (current === wanted) return;
  step(`installing wasm-bindgen-cli ${wanted} (found ${current ?? 'none'}); this compiles for a few minutes`);
  run('cargo', ['install', 'wasm-bindgen-cli', '--version', wanted, '--locked']);
}

function ensurePnpm() {
  const pinned = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).packageManager;
  const version = pinned.replace(/^pnpm@/, '').split('+')[0];
  if (!has('pnpm')) {
    step(`installing pnpm ${version}`);
    run('npm', ['install', '--global', `pnpm@${version}`]);
  }
  const frozen = existsSync(join(ROOT, 'pnpm-lock.yaml'));
  step(`pnpm install${frozen ? ' --frozen-lockfile' : ''}`);
  run('pnpm', ['install', ...(frozen ? ['--frozen-lockfile'] : [])]);
}

ensureWasmTarget();
ensureRustComponents();
ensureAptPackages();
ensureWasmBindgen();
ensurePnpm();
step('done');
