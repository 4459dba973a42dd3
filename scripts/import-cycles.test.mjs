import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withTree } from './test-tree.mjs';
import { findCycle, importGraph } from './import-cycles.mjs';

test('a cycle through a type-only import and a subfolder is found', () => {
  withTree({
    'init.ts': "import { NumericBlob } from './numeric.js';\n",
    'numeric.ts': "import type { X } from './worker/state.js';\n",
    'worker/state.ts': "export { ready } from '../init.js';\n",
    'leaf.ts': "import { readFileSync } from 'node:fs';\n",
  }, (dir) => {
    const cycle = findCycle(importGraph([dir]));
    assert.deepEqual(cycle?.map((f) => f.slice(dir.length + 1)), ['init.ts', 'numeric.ts', 'worker/state.ts', 'init.ts']);
  });
});

test('layers that import downward only have no cycle', () => {
  withTree({
    'module.ts': 'export const x = 1;\n',
    'numeric.ts': "import { x } from './module.js';\n",
    'init.ts': "import { x } from './module.js';\nimport './numeric.js';\nconst later = () => import('./numeric.js');\n",
  }, (dir) => {
    assert.equal(findCycle(importGraph([dir])), undefined);
  });
});
