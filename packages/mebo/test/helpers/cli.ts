// Running the `mebo` command as a user does: the package manager's bin link
// at the repository root (what `npx mebo` runs), as a child process.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './vectors.js';

export const MEBO_BIN = join(REPO_ROOT, 'node_modules/.bin/mebo');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

export function mebo(args: string[], options: { input?: string | Buffer; cwd?: string } = {}): CliResult {
  if (!existsSync(MEBO_BIN)) {
    throw new Error(`${MEBO_BIN} is missing: run \`pnpm install\` at the repository root (the root package.json depends on the workspace's mebo)`);
  }
  const result = spawnSync(MEBO_BIN, args, {
    cwd: options.cwd ?? REPO_ROOT,
    input: options.input,
    timeout: 60_000,
    maxBuffer: 256 << 20,
  });
  if (result.error) throw result.error;
  return {
    status: result.status,
    stdout: result.stdout.toString('utf8'),
    stderr: result.stderr.toString('utf8'),
    stdoutBytes: result.stdout,
  };
}

/** `mebo` as a child process the caller need not wait for, so that several run at once. */
export function meboAsync(args: string[], options: { input?: string | Buffer; cwd?: string } = {}): Promise<CliResult> {
  if (!existsSync(MEBO_BIN)) throw new Error(`${MEBO_BIN} is missing: run \`pnpm install\` at the repository root`);
  return new Promise((resolve, reject) => {
    const child = spawn(MEBO_BIN, args, { cwd: options.cwd ?? REPO_ROOT });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => stdout.push(d));
    child.stderr.on('data', (d: Buffer) => stderr.push(d));
    child.on('error', reject);
    child.on('close', (status) => {
      const bytes = Buffer.concat(stdout);
      resolve({ status, stdout: bytes.toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8'), stdoutBytes: bytes });
    });
    child.stdin.on('error', () => {}); // EPIPE when it stops reading early
    child.stdin.end(options.input);
  });
}

/** `run` over `items`, at most `limit` at a time, the results in order. */
export async function inParallel<T, R>(items: readonly T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await run(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A failure as the CLI must report it: non-zero status, one line on stderr, no stack trace. */
export function isOneLineFailure(r: CliResult): boolean {
  const lines = r.stderr.split('\n');
  return r.status !== 0 && r.status !== null && lines.length === 2 && lines[1] === '' && !/\n\s+at /.test(r.stderr) && r.stderr.startsWith('mebo');
}

/** Parse RFC 4180 CSV (quoted fields may hold commas, quotes and newlines). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) throw new Error('CSV does not end with a newline');
  return rows;
}
