// The `mebo` command line: inspect, decode and encode blobs through the SDK.
// Every failure ends as one line on stderr and a non-zero exit status:
// 1 when a file or blob failed, 2 when the command line is wrong.

import { closeSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { init } from '../src/index.js';
import { parseCommandLine, UsageError, type Specs } from './args.js';
import { InputError } from './document.js';
import { ENCODE_OPTIONS, encodeDocument, type OptionField } from './encode.js';
import { formatReport, inspect } from './inspect.js';
import { checkBlob, csvHeader, describeError, openBlob, streamDocument, writeCsvRows } from './output.js';
import { streamSink, writeJson } from './stream.js';

/** Defaults safe for untrusted files: 64 MiB of input or of one decompressed payload, 16 Mi points. */
const DEFAULT_MAX_BYTES = 64 << 20;
const DEFAULT_MAX_POINTS = 16 << 20;

const LIMIT_HELP = `  --max-bytes <n>   largest input file (stdin too) and largest decompressed
                    payload, in bytes (default ${DEFAULT_MAX_BYTES}); past it: SIZE_CAP
  --max-points <n>  largest point count of a blob (default ${DEFAULT_MAX_POINTS})
`;

const HELP: Record<string, string> = {
  main: `mebo: read and write mebo time-series blobs

Usage:
  mebo inspect <blob> [--json]              header, options, section sizes, metrics
  mebo decode <blob>... [--exact|--csv]     the points, as JSON (lossless, or CSV)
                                            (--max-bytes, --max-points: see --help)
  mebo encode <input.json> -o <blob> [...]  a blob from 'decode --exact' JSON

Run 'mebo <command> --help' for a command's options. '-' reads stdin.
Options: --help, --version
`,
  inspect: `Usage: mebo inspect <blob> [--json]

Prints what the blob's header says (kind, encodings, compression, tags, byte
order, layout, start time), how many bytes each section takes (header, names,
index, shared-timestamp table, each payload stored and decompressed), and
each metric's id, name (when the blob stores names) and point count. For a
numeric blob, also what '--config auto' would make of the same points under
each --prefer: the configuration, its bytes and a decode time beside the blob's.

Options:
  --json    the same as one JSON object
${LIMIT_HELP}  --help    this text
`,
  decode: `Usage: mebo decode <blob>... [--exact | --csv]

Prints each blob's points as JSON: kind, startTime (ISO 8601), options, and
metrics with id (16 hex digits), name (when the blob stores names), points,
timestamps (microseconds), times (ISO 8601 UTC, to the microsecond), values
as numbers ("NaN", "Infinity", "-Infinity" and "-0" as strings) or texts,
and tags (when the blob has tags).

One blob: pretty JSON. Several: one compact JSON document per line, in
argument order; a blob that fails prints {"file", "error": {code, message}}
on its line, and the exit status is 1.

Options:
  --exact   the lossless schema of the conformance vectors' input files, which
            'mebo encode' reads: timestamps as decimal strings, values as
            IEEE-754 bits (16 hex digits, so NaN payloads survive)
  --csv     a flat table instead: metric,timestamp,value,tag (a leading file
            column with several blobs); metric is the name, else the id
${LIMIT_HELP}  --help    this text

The output is written as it is made, one metric at a time, after every
metric was decoded once to check it: a blob that fails prints nothing.
`,
  encode: `Usage: mebo encode <input.json> -o <blob> [options]

Reads JSON in the schema 'mebo decode --exact' prints (the conformance
vectors' input files): 'identifier' says whether metrics start by name or by
id. Options come from the document's 'options' object when it has one, then
from the flags.

Options:
  -o, --output <file>              where to write the blob ('-': stdout)
  --config <ts-tsComp-val-valComp> the four column choices at once,
                                   e.g. delta-none-gorilla-zstd (numeric);
                                   'auto': the smallest for the data within
                                   --prefer's decode bound
  --prefer <balanced|size|speed>   with --config auto: balanced (default) is
                                   no slower to decode than the default config
                                   and never larger; speed at most half its
                                   decode cost; size the fewest bytes
  --timestamp-encoding <raw|delta|deltapacked>   (text: raw|delta)
  --value-encoding <raw|gorilla|chimp|alp>       (numeric)
  --timestamp-compression <none|zstd|s2|lz4>     (numeric)
  --value-compression <none|zstd|s2|lz4>         (numeric)
  --data-compression <none|zstd|s2|lz4>          (text)
  --layout <v1|v2|v2-shared>                     (numeric)
  --tags, --no-tags                per-point tags (default: on when the input has tags)
  --big-endian, --no-big-endian    byte order (default: little endian)
  --help                           this text

Example:
  mebo encode gauge.json -o gauge.mebo --config delta-none-gorilla-zstd --layout v2
`,
};

const COMMON: Specs = { help: { type: 'boolean', short: 'h' } };

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return 'unknown';
  }
}

/** The limits flags, checked. */
const LIMIT_SPECS: Specs = { 'max-bytes': { type: 'string' }, 'max-points': { type: 'string' } };

interface Limits {
  maxBytes: number;
  maxPoints: number;
}

function limitsOf(values: Record<string, unknown>): Limits {
  const count = (flag: string, fallback: number): number => {
    const text = values[flag];
    if (text === undefined) return fallback;
    const n = Number(text);
    if (typeof text !== 'string' || !/^[0-9]+$/.test(text) || !Number.isSafeInteger(n)) {
      throw new UsageError(`--${flag} takes a whole number, got ${JSON.stringify(text)}`);
    }
    return n;
  };
  return { maxBytes: count('max-bytes', DEFAULT_MAX_BYTES), maxPoints: count('max-points', DEFAULT_MAX_POINTS) };
}

/**
 * A file (or stdin for '-') read a chunk at a time, refused with SIZE_CAP as
 * soon as it passes `maxBytes`: endless input never grows past the bound.
 */
function readInput(file: string, maxBytes = Number.MAX_SAFE_INTEGER): Buffer {
  let fd: number | undefined;
  try {
    fd = file === '-' ? 0 : openSync(file, 'r');
    const chunks: Buffer[] = [];
    let size = 0;
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        // A non-blocking stdin with nothing yet: wait and read again.
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
          continue;
        }
        if ((error as NodeJS.ErrnoException).code === 'EOF') break;
        throw error;
      }
      if (n === 0) break;
      size += n;
      if (size > maxBytes) throw new FileError('SIZE_CAP', file, `SIZE_CAP: input passes --max-bytes ${maxBytes}`);
      chunks.push(Buffer.from(chunk.subarray(0, n)));
    }
    return Buffer.concat(chunks, size);
  } catch (error) {
    if (error instanceof FileError) throw error;
    const e = error as NodeJS.ErrnoException;
    const reason =
      e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : e.code === 'EACCES' ? 'permission denied' : e.message;
    throw new FileError(e.code ?? 'FILE', file, reason);
  } finally {
    if (fd !== undefined && fd !== 0) closeSync(fd);
  }
}

/** A file that cannot be read or written; `code` is the system's (ENOENT, ...). */
class FileError extends Error {
  constructor(
    readonly code: string,
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

/** Write to stdout (the process ends by exit code, never by process.exit, so it all drains). */
function print(text: string | Uint8Array): void {
  process.stdout.write(text);
}

async function inspectCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, { ...COMMON, ...LIMIT_SPECS, json: { type: 'boolean' } });
  if (values.help) return help('inspect');
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'which blob? (mebo inspect <blob>)' : 'inspect takes one blob');
  const limits = limitsOf(values);
  const file = positionals[0]!;
  const bytes = readInput(file, limits.maxBytes);
  await init();
  const text = about(file, () => {
    const blob = openBlob(bytes, { maxDecompressedBytes: limits.maxBytes, maxPoints: limits.maxPoints });
    try {
      const report = inspect(blob);
      return values.json ? `${JSON.stringify({ file, size: bytes.length, ...report }, null, 2)}\n` : formatReport(file, report);
    } finally {
      blob.free();
    }
  });
  print(text);
  return 0;
}

async function decodeCommand(argv: string[]): Promise<number> {
  const { values, positionals: files } = parseCommandLine(argv, { ...COMMON, ...LIMIT_SPECS, csv: { type: 'boolean' }, exact: { type: 'boolean' } });
  if (values.help) return help('decode');
  if (files.length === 0) throw new UsageError('which blob? (mebo decode <blob>...)');
  const csv = values.csv === true;
  const exact = values.exact === true;
  if (csv && exact) throw new UsageError('--csv and --exact are two output forms: pick one');
  const limits = limitsOf(values);
  await init();
  const stdout = streamSink(process.stdout);
  // Whether the current blob's output has begun: a failure then ends its line first.
  let begun = false;
  const sink = { write: (text: string) => ((begun ||= text.length > 0), stdout.write(text)) };
  const many = files.length > 1;
  let failed = 0;
  if (csv) await sink.write(csvHeader(many));
  for (const file of files) {
    begun = false;
    try {
      const blob = openBlob(readInput(file, limits.maxBytes), { maxDecompressedBytes: limits.maxBytes, maxPoints: limits.maxPoints });
      try {
        if (csv) await writeCsvRows(sink, blob, many ? file : undefined);
        else {
          checkBlob(blob);
          await writeJson(sink, streamDocument(blob, exact), many ? 0 : 2);
          await sink.write('\n');
        }
      } finally {
        blob.free();
      }
    } catch (error) {
      failed++;
      const { code, message } = error instanceof FileError ? { code: error.code, message: error.reason } : describeError(error);
      const line = `${file}: ${error instanceof FileError ? message : `${code}: ${message}`}`;
      if (!many) throw Object.assign(new Error(line), { reported: true });
      warn(`mebo decode: ${line}`);
      if (csv) continue;
      await sink.write(`${begun ? '\n' : ''}${JSON.stringify({ file, error: { code, message } })}\n`);
    }
  }
  return failed > 0 ? 1 : 0;
}

async function encodeCommand(argv: string[]): Promise<number> {
  const specs: Specs = { ...COMMON, output: { type: 'string', short: 'o' } };
  for (const { flag, type } of Object.values(ENCODE_OPTIONS)) {
    specs[flag] = { type };
    if (type === 'boolean') specs[`no-${flag}`] = { type };
  }
  const { values, positionals } = parseCommandLine(argv, specs);
  if (values.help) return help('encode');
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'which input? (mebo encode <input.json> -o <blob>)' : 'encode takes one input file');
  const output = values.output;
  if (typeof output !== 'string') throw new UsageError('where to? -o <blob> is required (-o - writes to stdout)');
  if (output === '-' && process.stdout.isTTY) throw new UsageError('not writing a binary blob to a terminal: redirect stdout or give -o <file>');
  const flags = new Map<OptionField, string | boolean>();
  for (const [field, { flag }] of Object.entries(ENCODE_OPTIONS)) {
    const value = values[flag] ?? (values[`no-${flag}`] ? false : undefined);
    if (value !== undefined) flags.set(field as OptionField, value as string | boolean);
  }
  const input = positionals[0]!;
  let doc;
  try {
    doc = JSON.parse(readInput(input).toString('utf8'));
  } catch (error) {
    if (error instanceof SyntaxError) throw new InputError(`${input}: not valid JSON (${error.message})`);
    throw error;
  }
  await init();
  const bytes = about(input, () => encodeDocument(doc, flags).bytes);
  if (output === '-') print(bytes);
  else {
    try {
      writeFileSync(output, bytes);
    } catch (error) {
      throw new FileError((error as NodeJS.ErrnoException).code ?? 'FILE', output, `cannot write: ${(error as Error).message}`);
    }
  }
  return 0;
}

/** Run `fn`; an SDK or input failure is reported with the file it is about. */
function about<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof UsageError || error instanceof FileError) throw error;
    const { code, message } = describeError(error);
    const line = error instanceof InputError ? `${file}: ${message}` : `${file}: ${code}: ${message}`;
    throw Object.assign(new Error(line), { reported: true });
  }
}

function help(topic: string): number {
  print(HELP[topic]!);
  return 0;
}

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  inspect: inspectCommand,
  decode: decodeCommand,
  encode: encodeCommand,
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h') return help('main');
  if (command === 'help') return help(rest[0] && rest[0] in COMMANDS ? rest[0] : 'main');
  if (command === '--version' || command === '-v') {
    print(`mebo ${version()}\n`);
    return 0;
  }
  const run = COMMANDS[command];
  if (!run) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  current = command;
  return run(rest);
}

let current = '';

/** Text for one stderr line: control characters (a newline from a quoted file, say) escaped, the length bounded. */
function oneLine(text: string): string {
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return line.length > 500 ? `${line.slice(0, 500)}…` : line;
}

/** Write one line on stderr. */
function warn(text: string): void {
  process.stderr.write(`${oneLine(text)}\n`);
}

/** One line on stderr: what failed, never a stack trace. */
function report(error: unknown): number {
  const prefix = current ? `mebo ${current}` : 'mebo';
  if (error instanceof UsageError) {
    warn(`${prefix}: ${error.message} (see 'mebo ${current ? `${current} ` : ''}--help')`);
    return 2;
  }
  if ((error as { reported?: boolean }).reported) {
    warn(`${prefix}: ${(error as Error).message}`);
    return 1;
  }
  if (error instanceof FileError || error instanceof InputError) {
    warn(`${prefix}: ${error.message}`);
    return 1;
  }
  const { code, message } = describeError(error);
  warn(`${prefix}: ${code}: ${message}`);
  return 1;
}

// A closed pipe (`mebo decode x | head`) ends the output quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  warn(`mebo: cannot write the output: ${error.message}`);
  process.exit(1);
});
process.on('uncaughtException', (error) => {
  process.exitCode = report(error);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = report(error);
  },
);
