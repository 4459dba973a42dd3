import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { findCycle, importGraph } from './import-cycles.mjs';

/** A folder of TypeScript files: name -> source. */
function project(files) {
  const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

test('a cycle through a type-only import and a subfolder is found', () => {
  const dir = project({
    'init.ts': "import { NumericBlob } from './numeric.js';\n",
    'numeric.ts': "import type { X } from './worker/state.js';\n",
    'worker/state.ts': "export { ready } from '../init.js';\n",
    'leaf.ts': "import { readFileSync } from 'node:fs';\n",
  });
  try {
    const cycle = findCycle(importGraph([dir]));
    assert.deepEqual(cycle?.map((f) => f.slice(dir.length + 1)), ['init.ts', 'numeric.ts', 'worker/state.ts', 'init.ts']);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('layers that import downward only have no cycle', () => {
  const dir = project({
    'module.ts': 'export const x = 1;\n',
    'numeric.ts': "import { x } from './module.js';\n",
    'init.ts': "import { x } from './module.js';\nimport './numeric.js';\nconst later = () => import('./numeric.js');\n",
  });
  try {
    assert.equal(findCycle(importGraph([dir])), undefined);
  } finally {
    rmSync(dir, { recursive: true });
  }
});
