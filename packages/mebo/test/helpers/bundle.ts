// An app's entry bundled for the browser as a user's esbuild would: ESM,
// minified, resolved from the package root (so `mebo/...` names this package).

import { build } from 'esbuild';
import { expect } from 'vitest';
import { PACKAGE_ROOT } from './vectors.js';

/** The one output file of bundling `contents` (a JS module), as text; esbuild must report no error. */
export async function browserBundle(contents: string): Promise<string> {
  const result = await build({
    stdin: { contents, resolveDir: PACKAGE_ROOT, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  expect(result.errors).toEqual([]);
  return result.outputFiles[0]!.text;
}
