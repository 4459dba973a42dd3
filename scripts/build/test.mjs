#!/usr/bin/env node
// The build's tests: every scripts/build/*.test.mjs, with node's test runner.
// (Node 20's `--test` takes files, not a glob, so they are listed here.)

import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../lib.mjs';

const dir = dirname(fileURLToPath(import.meta.url));
run('node', ['--test', ...readdirSync(dir).filter((f) => f.endsWith('.test.mjs')).sort().map((f) => join(dir, f))]);
