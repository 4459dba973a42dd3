// Serves the example on 127.0.0.1: index.html, dist/ (the bundle), and the
// .mebo files of a folder under /blobs/, listed in /blobs.json.
//
//   node serve.mjs <folder of .mebo files> [port]     (port 0: any free one)

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const [folder, port = '8080'] = process.argv.slice(2);
if (!folder) {
  console.error('usage: node serve.mjs <folder of .mebo files> [port]');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const blobDir = resolve(folder);
const blobs = readdirSync(blobDir).filter((f) => f.endsWith('.mebo')).sort();
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json', '.mebo': 'application/octet-stream' };

const server = createServer((request, response) => {
  const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
  if (path === '/blobs.json') {
    return response.writeHead(200, { 'content-type': TYPES['.json'] }).end(JSON.stringify(blobs.map((f) => `blobs/${encodeURIComponent(f)}`)));
  }
  const [root, rest] = path.startsWith('/blobs/') ? [blobDir, path.slice('/blobs/'.length)] : [here, path === '/' ? 'index.html' : path.slice(1)];
  const file = normalize(join(root, rest));
  const allowed = root === blobDir ? blobs.includes(rest) : rest === 'index.html' || file.startsWith(join(here, 'dist') + sep);
  if (request.method !== 'GET' || !allowed || !statSync(file, { throwIfNoEntry: false })?.isFile()) return response.writeHead(404).end();
  response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
});
server.listen(Number(port), '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/ (${blobs.length} blobs from ${blobDir})`));
