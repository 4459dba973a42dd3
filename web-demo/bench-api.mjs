// The dashboard's local benchmark API: `npm run demo` mounts it beside the
// static files so the page can time the native Rust decoder and the SDK in
// Node on this machine, live, next to its own in-browser figures.
//
//   GET /api/bench                            { runtimes, plans, machine, running }
//   GET /api/bench/run?runtime=R&plan=P       rows as they are measured, one JSON object a line:
//                                             {"type":"row","row":{...}} ... {"type":"done","rows":N}
//                                             or {"type":"error","message":"..."}
//
// R is `rust-native` (target/release/mebo-bench) or `wasm-node` (the SDK's
// simd build in a Node child process, bench/runners/bench-node.mjs), each timing
// decode and encode (each configuration from its input, `auto` per prefer), and
// `go-reference`, the reference's harness (reference/, GOMAXPROCS=1),
// where `npm run demo` could build it (Go >= 1.25 on PATH); P is `quick` or `full` (mebo-tooling/harness PLANS). The request names nothing else: every
// command, argument and path below is fixed here, and the runners read only
// the bench blobs of testdata/bench, the same ones the page bundles. Anything
// else is refused: other parameters or values (400), other methods (405), a
// second run while one is going (409), a peer that is not loopback or a Host /
// Origin that is not this server (403: no other machine and no other site,
// including one that rebinds its DNS name to 127.0.0.1, can start a run).

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BENCH_DIR } from 'mebo-tooling/data';
import { cpuName } from 'mebo-tooling/machine';
import { REFERENCE_BINARY as GO_REFERENCE } from 'mebo-tooling/reference';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const NATIVE_BENCH = join(ROOT, 'target/release/mebo-bench');

/** The runtimes the API runs, each a fixed command; `plan` is the only thing the request picks. */
const RUNNERS = {
  'rust-native': (quick) => [NATIVE_BENCH, ['--stream', ...(quick ? ['--quick'] : [])]],
  'wasm-node': (quick) => [process.execPath, [join(ROOT, 'bench/runners/bench-node.mjs'), '--variant', 'simd', '--stream', '--encode', ...(quick ? ['--quick'] : [])]],
  'go-reference': (quick) => [GO_REFERENCE, ['-bench-dir', BENCH_DIR, '-stream', ...(quick ? ['-quick'] : [])]],
};
/** Runtimes that can run here: go-reference only where its harness was built. */
const available = () => Object.keys(RUNNERS).filter((r) => r !== 'go-reference' || existsSync(GO_REFERENCE));
const PLANS = ['quick', 'full'];
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** True for 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6. */
export function isLoopbackAddress(address) {
  if (typeof address !== 'string') return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127(\.\d{1,3}){3}$/.test(v4);
}

function rustcVersion() {
  const result = spawnSync('rustc', ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/**
 * The API as a request handler: `handle(req, res)` answers a request for
 * `/api/...` and returns true, or returns false for any other path (the
 * static server's).
 */
export function createBenchApi() {
  /** The run in progress: its child process. One at a time: runs would skew each other's figures. */
  let running;
  const machine = { cpu: cpuName(), cores: cpus().length, node: process.version, rustc: rustcVersion(), platform: `${process.platform} ${process.arch}` };

  function refuse(res, status, message) {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(`${JSON.stringify({ error: message })}\n`);
    return true;
  }

  /** Why this request may not use the API, or undefined when it may. */
  function forbidden(req) {
    if (!isLoopbackAddress(req.socket?.remoteAddress)) return 'only this machine may use the benchmark API';
    const host = req.headers.host ?? '';
    const [, hostname, port = '80'] = host.match(/^(\[::1\]|[^:]+)(?::(\d+))?$/) ?? [];
    if (!LOOPBACK_HOSTS.has(hostname) || Number(port) !== req.socket?.localPort) return `Host ${JSON.stringify(host)} is not this server`;
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${host}`) return `Origin ${JSON.stringify(origin)} is not this server`;
    return undefined;
  }

  function run(req, res, runtime, plan) {
    if (running) return refuse(res, 409, 'a benchmark run is already in progress');
    const [command, args] = RUNNERS[runtime](plan === 'quick');
    if (!existsSync(command)) return refuse(res, 503, `${runtime} is not built (npm run demo builds it)`);
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    running = child;
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    const send = (message) => res.write(`${JSON.stringify(message)}\n`);
    let rows = 0;
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      let row;
      try {
        row = JSON.parse(line);
      } catch {
        return; // not a row (a runner's stray output)
      }
      rows++;
      send({ type: 'row', row });
    });
    const stop = () => child.kill('SIGTERM');
    // The page left (cancel, reload): stop measuring for nobody.
    res.on('close', stop);
    child.on('error', (error) => {
      send({ type: 'error', message: `${runtime}: ${error.message}` });
    });
    child.on('close', (code, signal) => {
      running = undefined;
      res.off('close', stop);
      if (code === 0) send({ type: 'done', rows });
      else send({ type: 'error', message: `${runtime} stopped (${signal ?? `exit ${code}`}): ${stderr.trim().split('\n').slice(-3).join(' | ')}` });
      res.end();
    });
    return true;
  }

  function handle(req, res) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/api' && !url.pathname.startsWith('/api/')) return false;
    const why = forbidden(req);
    if (why) return refuse(res, 403, why);
    if (req.method !== 'GET') return refuse(res, 405, 'the benchmark API answers GET only');
    const params = [...url.searchParams.keys()];
    if (url.pathname === '/api/bench') {
      if (params.length) return refuse(res, 400, `/api/bench takes no parameters (got ${params.join(', ')})`);
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(`${JSON.stringify({ runtimes: available(), plans: PLANS, machine, running: running !== undefined })}\n`);
      return true;
    }
    if (url.pathname === '/api/bench/run') {
      const unknown = params.filter((p) => p !== 'runtime' && p !== 'plan');
      if (unknown.length) return refuse(res, 400, `unknown parameter ${unknown.join(', ')}: a run takes only runtime and plan`);
      const runtime = url.searchParams.getAll('runtime');
      const plan = url.searchParams.getAll('plan');
      if (runtime.length !== 1 || !available().includes(runtime[0])) return refuse(res, 400, `runtime must be one of ${available().join(', ')}`);
      if (plan.length !== 1 || !PLANS.includes(plan[0])) return refuse(res, 400, `plan must be one of ${PLANS.join(', ')}`);
      return run(req, res, runtime[0], plan[0]);
    }
    return refuse(res, 404, `no API at ${url.pathname}`);
  }

  return { handle, machine };
}
