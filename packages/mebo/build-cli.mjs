#!/usr/bin/env node
// Builds dist/cli.js, the `mebo` command line (cli/*.ts), with esbuild. The
// CLI imports the SDK through its public entry, which stays external: the
// bundle loads dist/index.js beside it rather than a second copy of the SDK.
// The parser of the vectors' input schema (cli/document.ts) is a module of
// its own, dist/document.js, that the CLI loads likewise; the package exports
// it as `mebo/document` (the workspace's tooling and demo build import it).
// Run after build-sdk.mjs (which empties dist/).

import { chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

process.chdir(fileURLToPath(new URL('.', import.meta.url)));

const common = { bundle: true, format: 'esm', platform: 'node', target: 'node18', logLevel: 'warning' };
await build({ ...common, entryPoints: ['cli/document.ts'], outfile: 'dist/document.js' });
await build({
  ...common,
  entryPoints: ['cli/main.ts'],
  outfile: 'dist/cli.js',
  banner: { js: '#!/usr/bin/env node' },
  plugins: [
    {
      name: 'externals',
      setup(b) {
        b.onResolve({ filter: /^\.\.\/src\/entries\/index\.js$/ }, () => ({ path: './index.js', external: true }));
        b.onResolve({ filter: /^\.\/document\.js$/ }, () => ({ path: './document.js', external: true }));
      },
    },
  ],
});
chmodSync('dist/cli.js', 0o755);
