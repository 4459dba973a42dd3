// Small helpers shared by the workspace scripts.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file lives in scripts/). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Run a command with inherited output; exit the script when it fails. */
export function run(command, args, options = {}) {
  console.log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: ROOT, ...options });
  if (result.error) {
    console.error(`${command}: ${result.error.message}`);
    process.exit(1);
  }
  if (result.status !== 0) {
    console.error(`${command} exited with ${result.status ?? result.signal}`);
    process.exit(result.status || 1);
  }
}

/** A command's standard output, or undefined when it cannot run or fails. */
export function output(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8', cwd: ROOT });
  return result.status === 0 ? result.stdout : undefined;
}

/** True when `command` is on PATH and answers `--version`. */
export function has(command) {
  return output(command, ['--version']) !== undefined;
}

/** The version Cargo.lock pins for a package (its first entry of that name). */
export function lockedVersion(name) {
  const lock = readFileSync(join(ROOT, 'Cargo.lock'), 'utf8');
  const match = lock.match(new RegExp(`\\[\\[package\\]\\]\\nname = "${name}"\\nversion = "([^"]+)"`));
  if (!match) throw new Error(`Cargo.lock has no package ${name}`);
  return match[1];
}
