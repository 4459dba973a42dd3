#!/usr/bin/env node
// Builds dist/cli.js, the `mebo` command line (cli/*.ts), with esbuild. The
// CLI imports the SDK through its public entry, which stays external: the
// bundle loads dist/index.js beside it rather than a second copy of the SDK.
// Run after build-sdk.mjs (which empties dist/).

import { chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

process.chdir(fileURLToPath(new URL('.', import.meta.url)));

await build({
  entryPoints: ['cli/main.ts'],
  outfile: 'dist/cli.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node18',
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
  plugins: [
    {
      name: 'sdk-external',
      setup(b) {
        b.onResolve({ filter: /^\.\.\/src\/index\.js$/ }, () => ({ path: './index.js', external: true }));
      },
    },
  ],
});
chmodSync('dist/cli.js', 0o755);
