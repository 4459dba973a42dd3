import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prefix, runQuiet } from './command.mjs';

const node = process.execPath;

test('output is held and each line prefixed', () => {
  assert.equal(prefix('simd', 'one\n\n  \ntwo'), '  [simd] one\n  [simd] two\n');
  assert.equal(prefix('simd', ''), '');
});

test('a command that succeeds resolves with all its output', async () => {
  const text = await runQuiet('t', node, ['-e', 'console.log("out"); console.error("err")']);
  assert.match(text, /out/);
  assert.match(text, /err/);
});

test('a failing command rejects and stops the others still running', async () => {
  const slow = runQuiet('slow', node, ['-e', 'setTimeout(() => {}, 30000)']);
  await assert.rejects(runQuiet('bad', node, ['-e', 'process.exit(3)']), /\[bad\] .* exited with 3/);
  // Killed, not waited for: it would run for 30 s.
  await assert.rejects(slow, /\[slow\] .* exited with SIGTERM/);
  await assert.rejects(runQuiet('missing', '/nonexistent/command', []), /ENOENT/);
});
