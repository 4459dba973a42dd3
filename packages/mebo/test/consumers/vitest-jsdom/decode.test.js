// @vitest-environment jsdom
// A component test under jsdom that decodes with mebo: `await init()` with no
// argument (Vitest runs the package from node_modules, which reads its wasm
// from disk). Decodes the blobs that sample.json lists (written into the
// project by the harness) and writes results.json for it to compare.
// decode-document.js is copied beside this file.

import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import * as mebo from 'mebo';
import { decodeSample } from './decode-document.js';

test('mebo decodes under jsdom', async () => {
  expect(typeof document.createElement).toBe('function');
  await mebo.init();
  // Paths, not URLs: under jsdom, URL is jsdom's, which node:fs does not take.
  const sample = JSON.parse(readFileSync('sample.json', 'utf8')).map(({ name, path }) => ({ name, bytes: new Uint8Array(readFileSync(path)) }));
  const decoded = decodeSample(mebo, sample);
  writeFileSync('results.json', JSON.stringify({ info: mebo.wasmInfo(), userAgent: navigator.userAgent, ...decoded }));
  expect(Object.keys(decoded.results)).toHaveLength(sample.length);
});
