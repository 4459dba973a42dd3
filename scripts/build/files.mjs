// Writing the build's outputs so that a reader never sees half a file.

import { copyFileSync, readFileSync, renameSync } from 'node:fs';

/** Copy into place by rename, so a reader (a test run, another build) never sees half a file. */
export function install(from, to) {
  const temporary = `${to}.${process.pid}.tmp`;
  copyFileSync(from, temporary);
  renameSync(temporary, to);
}

/** Whether two files hold the same bytes. */
export function sameFile(a, b) {
  return readFileSync(a).equals(readFileSync(b));
}
