// The command line through node:util's parseArgs (strict): long options,
// short aliases (`-o`), `--` to end the options. A wrong command line is a
// UsageError, which the CLI reports with exit status 2.

import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {}

export type Specs = NonNullable<ParseArgsConfig['options']>;

export function parseCommandLine(args: string[], options: Specs) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true, tokens: true });
  } catch (error) {
    if (!String((error as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS_')) throw error;
    // Node's first sentence names the option ("Unknown option '--x'"); the rest is advice for its own CLI style.
    const first = (error as Error).message.split(/\.\s|\n/)[0]!.replaceAll("'", '');
    throw new UsageError(first.charAt(0).toLowerCase() + first.slice(1));
  }
  // parseArgs keeps the last of a repeated option: refuse it instead (`--no-x` repeats `--x`).
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    const name = token.name.replace(/^no-/, '');
    if (seen.has(name)) throw new UsageError(`--${name} is given twice`);
    seen.add(name);
  }
  return { values: parsed.values, positionals: parsed.positionals };
}
