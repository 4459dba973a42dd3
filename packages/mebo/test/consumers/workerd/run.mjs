// Runs dist/ in workerd through miniflare, with the modules wrangler would
// upload (the script, and each .wasm as CompiledWasm), POSTs the blobs named
// on the command line (`name=path`) and prints the Worker's answer.

import { readdirSync, readFileSync } from 'node:fs';
import { Miniflare } from 'miniflare';

const modules = [
  { type: 'ESModule', path: 'dist/worker.js' },
  ...readdirSync('dist')
    .filter((file) => file.endsWith('.wasm'))
    .map((file) => ({ type: 'CompiledWasm', path: `dist/${file}` })),
];
const body = process.argv.slice(2).map((arg) => {
  const eq = arg.indexOf('=');
  return { name: arg.slice(0, eq), base64: readFileSync(arg.slice(eq + 1)).toString('base64') };
});
const mf = new Miniflare({ modules, compatibilityDate: '2025-01-01' });
try {
  const response = await mf.dispatchFetch('http://localhost/', { method: 'POST', body: JSON.stringify(body) });
  const answer = await response.text();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${answer}`);
  console.log(JSON.stringify({ modules: modules.map((m) => `${m.type} ${m.path}`), ...JSON.parse(answer) }));
} finally {
  await mf.dispose();
}
