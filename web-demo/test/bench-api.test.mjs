// The local benchmark API of `npm run demo` (bench-api.mjs): it runs only its
// fixed runners on the bundled bench blobs, streams their rows, and refuses
// every other request. Needs target/release/mebo-bench (built by the demo's
// test script) and the SDK build.

import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBenchApi, isLoopbackAddress } from '../bench-api.mjs';
import { startServer } from 'mebo-tooling/serve';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
let server;
let port;

before(async () => {
  server = await startServer({ root: join(ROOT, 'dist'), api: createBenchApi() });
  port = Number(new URL(server.url).port);
});
after(() => server.close());

/** A raw GET (or other method) with chosen headers; resolves to { status, body } once the response ends. */
function get(path, { method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Start a run and resolve with its open response once the first row arrived. */
function startRun(path) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}` } }, (res) => {
      res.setEncoding('utf8');
      res.once('data', (chunk) => resolve({ req, res, first: chunk }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('bench API', () => {
  test('describes what it runs', async () => {
    const { status, body } = await get('/api/bench');
    assert.equal(status, 200);
    const info = JSON.parse(body);
    // go-reference too where a developer built the local reference harness.
    assert.deepEqual(info.runtimes.slice(0, 2), ['rust-native', 'wasm-node']);
    assert.deepEqual(info.plans, ['quick', 'full']);
    assert.equal(info.running, false);
    assert.equal(typeof info.machine.cpu, 'string');
    assert.equal(info.machine.node, process.version);
  });

  test('streams the native rows of every bench blob, then done', async () => {
    const { status, type, body } = await get('/api/bench/run?runtime=rust-native&plan=quick');
    assert.equal(status, 200);
    assert.match(type, /application\/x-ndjson/);
    const messages = body.trim().split('\n').map((line) => JSON.parse(line));
    const rows = messages.filter((m) => m.type === 'row').map((m) => m.row);
    // Each of the 23 blobs decoded and encoded from its input, then auto under 3 prefers.
    assert.deepEqual(messages.at(-1), { type: 'done', rows: 49 });
    assert.deepEqual(
      ['decode', 'encode', 'encode-auto'].map((op) => rows.filter((r) => r.op === op).length),
      [23, 23, 3],
    );
    for (const row of rows) {
      assert.equal(row.runtime, 'rust-native');
      assert.ok(row.median_ns > 0 && row.min_ns > 0 && row.min_ns <= row.median_ns, JSON.stringify(row));
      assert.equal(row.runs, 30);
    }
    assert.equal(rows.find((r) => r.config === 'delta-none-gorilla-none').points, 50_000);
    // The default configuration is written byte for byte as the reference wrote the recorded blob.
    const defaultEncode = rows.find((r) => r.config === 'delta-none-gorilla-none' && r.op === 'encode');
    assert.equal(defaultEncode.identical, true);
    assert.equal(defaultEncode.bytes, 483_644);
    // auto under balanced: never more bytes than the default, and it names what it wrote.
    const balanced = rows.find((r) => r.config === 'auto-balanced');
    assert.ok(balanced.bytes <= defaultEncode.bytes, JSON.stringify(balanced));
    assert.match(balanced.chosen, /^(raw|delta|deltapacked)-(none|zstd|s2|lz4)-(raw|gorilla|chimp|alp)-(none|zstd|s2|lz4)$/);
  });

  test('refuses unknown runtimes and plans, and any other parameter', async () => {
    for (const query of [
      'runtime=bash&plan=quick',
      'runtime=rust-native&plan=forever',
      'runtime=rust-native',
      'plan=quick',
      'runtime=rust-native&runtime=wasm-node&plan=quick',
      'runtime=rust-native&plan=quick&file=/etc/passwd',
      'runtime=rust-native&plan=quick&cmd=rm%20-rf%20/',
      'runtime=../../bin/sh&plan=quick',
      'runtime=rust-native&plan=quick&bench-dir=/tmp',
    ]) {
      const { status, body } = await get(`/api/bench/run?${query}`);
      assert.equal(status, 400, query);
      assert.ok(JSON.parse(body).error.length > 0, query);
    }
    assert.equal((await get('/api/bench?runtime=rust-native')).status, 400);
    assert.equal((await get('/api/run')).status, 404);
    assert.equal((await get('/api/bench/run/../../../../etc/passwd')).status, 404);
  });

  test('answers GET only', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      assert.equal((await get('/api/bench/run?runtime=rust-native&plan=quick', { method })).status, 405, method);
    }
  });

  test('refuses other hosts and origins (DNS rebinding, cross-site pages)', async () => {
    assert.equal((await get('/api/bench', { headers: { host: `attacker.example:${port}` } })).status, 403);
    assert.equal((await get('/api/bench', { headers: { host: `127.0.0.1:${port + 1}` } })).status, 403);
    assert.equal((await get('/api/bench', { headers: { origin: 'http://attacker.example' } })).status, 403);
    assert.equal((await get('/api/bench', { headers: { host: `localhost:${port}`, origin: `http://localhost:${port}` } })).status, 200);
  });

  test('refuses peers that are not loopback', () => {
    const api = createBenchApi();
    let status;
    const res = { writeHead: (s) => (status = s), end: () => {} };
    const req = { url: '/api/bench', method: 'GET', headers: { host: '127.0.0.1:8080' }, socket: { remoteAddress: '192.0.2.7', localPort: 8080 } };
    assert.equal(api.handle(req, res), true);
    assert.equal(status, 403);
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) assert.equal(isLoopbackAddress(address), true, address);
    for (const address of ['10.0.0.1', '192.168.1.1', '::ffff:10.0.0.1', '::2', '1270.0.0.1', undefined]) assert.equal(isLoopbackAddress(address), false, String(address));
  });

  test('runs one at a time, and stops a run whose page left', async () => {
    const first = await startRun('/api/bench/run?runtime=wasm-node&plan=quick');
    assert.match(first.first, /"type":"row"/);
    const second = await get('/api/bench/run?runtime=rust-native&plan=quick');
    assert.equal(second.status, 409);
    first.req.destroy();
    // The child is killed when the page goes: the API frees up long before the run would have ended.
    let running = true;
    for (let i = 0; i < 50 && running; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      running = JSON.parse((await get('/api/bench')).body).running;
    }
    assert.equal(running, false);
  });
});
