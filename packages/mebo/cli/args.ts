// A small argv parser: long options (`--name value`, `--name=value`), short
// aliases (`-o value`), booleans (`--tags`, `--no-tags`, `--tags=false`), and
// `--` to end the options. Anything it cannot read is a UsageError naming
// the argument.

export class UsageError extends Error {}

export interface OptionSpec {
  type: 'boolean' | 'string';
  short?: string;
}

export type Specs = Record<string, OptionSpec>;

export interface Parsed {
  values: Map<string, string | boolean>;
  positionals: string[];
}

export function parseArgs(argv: readonly string[], specs: Specs): Parsed {
  const values = new Map<string, string | boolean>();
  const positionals: string[] = [];
  const byShort = new Map(Object.entries(specs).flatMap(([name, s]) => (s.short ? [[s.short, name] as const] : [])));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-' || !arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq < 0 ? undefined : arg.slice(eq + 1);
    } else {
      const long = byShort.get(arg.slice(1, 2));
      if (long === undefined) throw new UsageError(`unknown option ${arg}`);
      name = long;
      inline = arg.length > 2 ? arg.slice(2) : undefined;
    }
    let spec = specs[name];
    let negated = false;
    if (spec === undefined && name.startsWith('no-') && specs[name.slice(3)]?.type === 'boolean') {
      name = name.slice(3);
      spec = specs[name];
      negated = true;
    }
    if (spec === undefined) throw new UsageError(`unknown option ${arg.split('=')[0]}`);
    if (values.has(name)) throw new UsageError(`--${name} is given twice`);
    if (spec.type === 'boolean') {
      if (inline === undefined) values.set(name, !negated);
      else if (!negated && (inline === 'true' || inline === 'false')) values.set(name, inline === 'true');
      else throw new UsageError(`--${name} takes no value other than true or false (got ${JSON.stringify(arg)})`);
    } else {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      values.set(name, value);
    }
  }
  return { values, positionals };
}
