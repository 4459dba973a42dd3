#!/usr/bin/env node
// The `mebo` command (package.json "bin"). The CLI itself is dist/cli.js, built
// with the SDK; this file exists before any build so package managers can link it.
import('../dist/cli.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND') {
    process.stderr.write('mebo: the CLI is not built (dist/cli.js is missing): run `npm run build` at the repository root\n');
  } else {
    process.stderr.write(`mebo: cannot start: ${error?.message ?? error}\n`);
  }
  process.exitCode = 1;
});
