// A folder of files for the scripts' own tests: written to a temporary
// folder, handed to `use`, removed after it whatever happens.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Write `files` (path -> text) into a fresh folder, run `use(dir)`, remove the folder. */
export function withTree(files, use) {
  const dir = mkdtempSync(join(tmpdir(), 'scripts-test-'));
  try {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
