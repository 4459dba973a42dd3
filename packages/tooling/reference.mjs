// The reference harness: the Go module in reference/ (it requires
// github.com/arloliu/mebo v1.9.0 from the Go module proxy; no reference code is
// committed), built into REFERENCE_BINARY when Go >= 1.25 is on PATH:
// `npm run bench` and `npm run demo` time the reference with it, `npm test`
// checks the blobs of testdata/ against it.

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const REFERENCE_MODULE = join(ROOT, 'reference');
export const REFERENCE_BINARY = join(ROOT, 'target/go-reference/mebo-go-reference');
/** The oldest Go the module builds with (its go.mod's `go` line, which the reference's own go.mod requires). */
const MIN_GO = [1, 25];

/** `go version`'s version, e.g. `go1.26.8`, or undefined when no Go is on PATH. */
export function goVersion() {
  const result = spawnSync('go', ['version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.match(/\bgo(\d+)\.(\d+)(\.\d+)?\b/)?.[0] : undefined;
}

/**
 * Build the harness. Returns `{ binary, go }`, or `{ reason }` saying why the
 * reference cannot be timed here (no Go, too old a Go, a failed build).
 */
export function buildReference(log = (line) => process.stderr.write(`${line}\n`)) {
  const go = goVersion();
  if (!go) return { reason: 'no `go` on PATH' };
  const [major, minor] = go.slice(2).split('.').map(Number);
  if (major < MIN_GO[0] || (major === MIN_GO[0] && minor < MIN_GO[1])) return { reason: `${go} is older than go${MIN_GO.join('.')}` };
  log(`$ go build -o ${REFERENCE_BINARY} (in reference/)`);
  const result = spawnSync('go', ['build', '-o', REFERENCE_BINARY, '.'], { cwd: REFERENCE_MODULE, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) return { reason: `go build failed (exit ${result.status ?? result.signal})` };
  return { binary: REFERENCE_BINARY, go };
}
