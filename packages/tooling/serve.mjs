#!/usr/bin/env node
// A tiny static file server for the demo (and the bench's Chromium page),
// bound to 127.0.0.1 only. `npm run demo` also mounts the local benchmark API
// (bench-api.mjs) under /api/; served by this file alone, the page has none.
//
//   mebo-serve [DIR]     serves DIR (default ./dist) on PORT (default 8080), no API
//
// Every response is cross-origin isolated (COOP + COEP): that gives pages
// 5 µs performance.now() resolution instead of 100 µs, which the benchmark
// panel relies on. .wasm is served as application/wasm so browsers compile it
// while it streams in.

import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.mebo': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** The file under `root` a URL path names, or undefined when it escapes `root` or is not a file. */
function fileFor(root, urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath.split('?')[0]);
  } catch {
    return undefined;
  }
  if (path.endsWith('/')) path += 'index.html';
  const file = normalize(join(root, path));
  if (file !== root && !file.startsWith(root + sep)) return undefined;
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Serve `root` on 127.0.0.1:`port` (0: any free port); `api`, when given,
 * answers its own paths first (`api.handle(req, res)` returns true for those).
 * Resolves to `{ server, url, close() }` once listening.
 */
export function startServer({ root, port = 0, quiet = true, api } = {}) {
  const base = resolve(root);
  const server = createServer((req, res) => {
    if (api?.handle(req, res)) {
      if (!quiet) console.log(`${req.method} ${req.url} ${res.statusCode}`);
      return;
    }
    const headers = {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    };
    const file = req.method === 'GET' || req.method === 'HEAD' ? fileFor(base, req.url ?? '/') : undefined;
    if (!quiet) console.log(`${req.method} ${req.url} ${file ? 200 : 404}`);
    if (!file) {
      res.writeHead(req.method === 'GET' || req.method === 'HEAD' ? 404 : 405, { ...headers, 'Content-Type': 'text/plain' });
      res.end('not found\n');
      return;
    }
    const type = MIME_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
    res.writeHead(200, { ...headers, 'Content-Type': type, 'Content-Length': statSync(file).size });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address();
      resolvePromise({
        server,
        url: `http://127.0.0.1:${bound}/`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? 'dist');
  const port = Number(process.env.PORT ?? 8080);
  const { url, close } = await startServer({ root, port, quiet: false });
  console.log(`mebo demo: ${url}  (serving ${root}; Ctrl-C to stop)`);
  const stop = () => close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
