// Running the build's commands side by side: each one's output is held and
// printed when it ends, each line prefixed with its variant's name.

import { spawn } from 'node:child_process';

/** Commands running now: a failure stops the others before the build exits. */
const running = new Set();

/**
 * Run a command; resolves with its output when it succeeds. When it fails
 * (or cannot start), every other command still running is stopped, its
 * output is printed and the promise rejects. On success all of the output is
 * printed when it has a warning, else only cargo's "Finished" line.
 */
export function runQuiet(label, command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    running.add(child);
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    const started = Date.now();
    let settled = false;
    const fail = (why) => {
      if (settled) return;
      settled = true;
      running.delete(child);
      for (const other of running) other.kill();
      process.stdout.write(prefix(label, Buffer.concat(chunks).toString()));
      reject(new Error(`[${label}] ${command} ${args.join(' ')}: ${why}`));
    };
    child.on('error', (error) => fail(error.message));
    child.on('close', (code, signal) => {
      if (code !== 0) return fail(`exited with ${code ?? signal}`);
      if (settled) return;
      settled = true;
      running.delete(child);
      const text = Buffer.concat(chunks).toString();
      const lines = text.split('\n');
      const shown = lines.some((line) => /^warning/.test(line)) ? lines : lines.filter((line) => /^\s*Finished/.test(line));
      console.log(`build: [${label}] ${command} ${args[0] ?? ''} … ${((Date.now() - started) / 1000).toFixed(1)} s`);
      process.stdout.write(prefix(label, shown.join('\n')));
      resolve(text);
    });
  });
}

/** `text`'s non-blank lines, indented and prefixed with `[label]`. */
export function prefix(label, text) {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `  [${label}] ${line}\n`)
    .join('');
}
