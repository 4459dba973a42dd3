// The package as users get it, for the tests that install it: `npm pack` of
// packages/mebo (dist/ and wasm/ built beforehand) and a way to run npm and
// the projects' tools with an environment of their own. Node only.

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './vectors.js';

export const MINUTES = 60_000;

/** What a package manager that started this run passes down and the consumers keep: how to reach the registry, and the cache. */
const NPM_KEPT = /^npm_config_(registry|cafile|ca|proxy|https_proxy|noproxy|strict_ssl|cache)$/i;

/**
 * The environment of every child: this one's, less what vitest sets (a build
 * must not think it runs under test) and less the npm_* variables of the npm
 * or pnpm that started the run (its project prefix, its package, its config):
 * each consumer is a project of its own.
 */
export const childEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([key]) => !/^(VITEST.*|NODE_ENV|NODE_OPTIONS|TEST|MODE|PROD|DEV|BASE_URL|SSR)$/.test(key) && (!/^(npm|pnpm)_/i.test(key) || NPM_KEPT.test(key)),
  ),
);

export interface Output {
  stdout: string;
  stderr: string;
}

/** Run a command to its end; a failure (or timeout) says what ran and its output's tail. */
export function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number }): Promise<Output> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? childEnv, timeout: options.timeout ?? 4 * MINUTES, maxBuffer: 256 << 20 },
      (error, stdout, stderr) => {
        if (!error) return resolve({ stdout, stderr });
        const tail = (text: string) => text.split('\n').slice(-40).join('\n');
        reject(new Error(`${command} ${args.join(' ')} (in ${options.cwd}) failed: ${error.message}\n--- stdout\n${tail(stdout)}\n--- stderr\n${tail(stderr)}`));
      },
    );
  });
}

export interface Packed {
  /** The tarball's path. */
  tarball: string;
  files: { path: string; size: number }[];
  size: number;
  unpackedSize: number;
}

/** `npm pack` of the built package into `destination`; a package not built yet is an error that says how to build it. */
export async function packSdk(destination: string): Promise<Packed> {
  for (const file of ['dist/index.js', 'dist/index.cjs', 'dist/workerd.js', 'dist/cli.js', 'wasm/mebo_simd.wasm']) {
    if (!existsSync(join(PACKAGE_ROOT, file))) {
      throw new Error(`${file} is missing: build the package first (node build-sdk.mjs && node build-cli.mjs in packages/mebo)`);
    }
  }
  const out = await run('npm', ['pack', '--json', '--pack-destination', destination], { cwd: PACKAGE_ROOT, timeout: 2 * MINUTES });
  const [info] = JSON.parse(out.stdout) as { filename: string; files: { path: string; size: number }[]; size: number; unpackedSize: number }[];
  return { tarball: join(destination, info!.filename), files: info!.files, size: info!.size, unpackedSize: info!.unpackedSize };
}
