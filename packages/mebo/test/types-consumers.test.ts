// The published types resolve and check for a consumer under TypeScript's
// node16 (ESM, and CommonJS through the .d.cts declarations), bundler and
// the old node (node10: subpaths through typesVersions) module resolution, and under the `workerd` condition (against dist/, so
// build first).

import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PACKAGE_ROOT } from './helpers/vectors.js';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function typecheck(config: string): string {
  try {
    execFileSync(process.execPath, [tsc, '-p', join(PACKAGE_ROOT, 'test/types-consumers', config)], { encoding: 'utf8' });
    return '';
  } catch (error) {
    return String((error as { stdout?: string }).stdout || error);
  }
}

it.each(['tsconfig.node16.json', 'tsconfig.node16-cjs.json', 'tsconfig.bundler.json', 'tsconfig.node10.json', 'tsconfig.workerd.json'])('a consumer type-checks with %s', (config) => {
  expect(typecheck(config)).toBe('');
});
