// The `mebo` command line: inspect, decode and encode blobs through the SDK.
// Every failure ends as one line on stderr and a non-zero exit status:
// 1 when a file or blob failed, 2 when the command line is wrong.

import { createWriteStream, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { constants } from 'node:buffer';
import { join } from 'node:path';
import { blobKind, decodeStream, frameBlobs, init, splitStream } from '../src/entries/index.js';
import { parseCommandLine, UsageError, type Specs } from './args.js';
import { InputError } from './document.js';
import { CSV_FLAGS, csvReading, isCsv } from './csv.js';
import { ENCODE_OPTIONS, encodeCsv, encodeDocument, type OptionField } from './encode.js';
import { formatReport, inspect } from './inspect.js';
import { FileError, openInput, readInput } from './input.js';
import { checkBlob, csvHeader, describeError, openBlob, streamDocument, writeCsvRows, type Blob } from './output.js';
import { streamSink, writeJson } from './stream.js';

/** Defaults safe for untrusted files: 64 MiB of input or of one decompressed payload, 16 Mi points. */
const DEFAULT_MAX_BYTES = 64 << 20;
const DEFAULT_MAX_POINTS = 16 << 20;
/** encode's input is text, about 40 bytes a point: 256 MiB, half of the longest string V8 makes. */
const DEFAULT_MAX_TEXT_BYTES = 256 << 20;

const LIMIT_HELP = `  --max-bytes <n>   largest input file (stdin too; in a stream of blobs, the
                    largest blob) and largest decompressed payload, in bytes
                    (default ${DEFAULT_MAX_BYTES}); past it: SIZE_CAP
  --max-points <n>  largest point count of a blob (default ${DEFAULT_MAX_POINTS})
`;

const HELP: Record<string, string> = {
  main: `mebo: read and write mebo time-series blobs

Usage:
  mebo inspect <blob> [--json]              header, options, section sizes, metrics
  mebo decode <blob>... [--exact|--csv]     the points, as JSON (lossless, or CSV)
                                            (--max-bytes, --max-points: see --help)
  mebo encode <input> -o <blob> [...]       a blob from 'decode --exact' JSON or
                                            'decode --csv' CSV
  mebo cat <blob>... [-o <stream>]          blobs into one stream of blobs
  mebo split <stream> -o <dir>              a stream of blobs into blob files

inspect and decode read a blob or a stream of blobs (told apart by its first
bytes: "MBS1"), printing each blob of a stream as it arrives.
Run 'mebo <command> --help' for a command's options. '-' reads stdin.
Options: --help, --version
`,
  inspect: `Usage: mebo inspect <blob | stream> [--json]

Prints what the blob's header says (kind, encodings, compression, tags, byte
order, layout, start time), how many bytes each section takes (header, names,
index, shared-timestamp table, each payload stored and decompressed), and
each metric's id, name (when the blob stores names) and point count. For a
numeric blob, also what '--config auto' would make of the same points under
each --prefer: the configuration, its bytes and a decode time beside the blob's.

A stream of blobs: each blob's report as it arrives, named <file>#<frame>
(--json: one compact JSON object per line); the first bad blob or frame ends
it with its error (exit status 1).

Options:
  --json    the same as one JSON object
${LIMIT_HELP}  --help    this text
`,
  decode: `Usage: mebo decode <blob | stream>... [--exact | --csv]

Prints each blob's points as JSON: kind, startTime (ISO 8601), options, and
metrics with id (16 hex digits), name (when the blob stores names), points,
timestamps (microseconds), times (ISO 8601 UTC, to the microsecond), values
as numbers ("NaN", "Infinity", "-Infinity" and "-0" as strings) or texts,
and tags (when the blob has tags).

One blob: pretty JSON. Several, or a stream of blobs: one compact JSON
document per line, in argument and stream order, each blob of a stream as it
arrives; a blob that fails prints {"file", "error": {code, message}} on its
line (in a stream, the message names the frame, and the stream ends there),
and the exit status is 1.

Options:
  --exact   the lossless schema of the conformance vectors' input files, which
            'mebo encode' reads: timestamps as decimal strings, values as
            IEEE-754 bits (16 hex digits, so NaN payloads survive)
  --csv     a flat table instead: metric,timestamp,value,tag (a leading file
            column with several blobs, <file>#<frame> for a stream's);
            metric is the name, else the id; 'mebo encode' reads it back
${LIMIT_HELP}  --help    this text

The output is written as it is made, one metric at a time, after every
metric was decoded once to check it: a blob that fails prints nothing.
`,
  encode: `Usage: mebo encode <input.json | input.csv> -o <blob> [options]

Reads JSON in the schema 'mebo decode --exact' prints (the conformance
vectors' input files): 'identifier' says whether metrics start by name or by
id. Options come from the document's 'options' object when it has one, then
from the flags.

Or CSV, told by its first line: the header metric,timestamp,value[,tag] that
'mebo decode --csv' writes (RFC 4180: quoted fields, "" for a quote, LF or
CRLF, a UTF-8 BOM skipped). Rows group by metric in the order metrics first
appear, each metric's points in row order; timestamps are int64 microseconds;
tags are kept when a row has one. A leading file column must name one file
throughout (a blob is one file's rows). The blob starts at the earliest first
timestamp; the flags give its options. Values are decimals as decode writes
them (NaN, Infinity, -Infinity, -0 too) and come back to the same float64,
except a NaN's payload, which CSV does not carry ('--exact' JSON does).

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
  --kind <numeric|text>            CSV: the values are numbers (default) or texts
  --metric <name|id>               CSV: the metric column holds names, or ids
                                   as 16 hex digits (default: ids when every
                                   metric is 16 hex digits, as decode writes
                                   them for a blob without names; else names)
  --max-bytes <n>                  largest input (stdin too), in bytes (default
                                   ${DEFAULT_MAX_TEXT_BYTES}); past it: SIZE_CAP
  --help                           this text

Examples:
  mebo encode gauge.json -o gauge.mebo --config delta-none-gorilla-zstd --layout v2
  mebo decode --csv a.mebo | mebo encode - -o b.mebo --config auto
`,
  cat: `Usage: mebo cat <blob | stream>... [-o <stream>]

Writes the blobs, in argument order, as one stream of blobs (docs/FORMAT.md:
"MBS1", then each blob's length as a u32 little endian and its bytes). A
stream of blobs given as input has its blobs copied in, frame by frame. Each
blob's magic is checked, not its content ('mebo inspect' does that).

Options:
  -o, --output <file>  where to write the stream (default '-': stdout, not a
                       terminal); a file appears only once complete
  --max-bytes <n>      largest blob, in bytes (default ${DEFAULT_MAX_BYTES}); past it: SIZE_CAP
  --help               this text

Example:
  mebo cat day/*.mebo -o day.mbs && mebo decode day.mbs
`,
  split: `Usage: mebo split <stream> -o <dir>

Writes each blob of a stream of blobs to <dir>/000000.mebo, 000001.mebo, ...
as it arrives, printing each path on its own line. The blobs are written as
they are ('mebo inspect' checks one). A stream that is cut short ends with
TRUNCATED after the complete blobs were written (exit status 1).

Options:
  -o, --output <dir>   the directory (made when missing)
  --max-bytes <n>      largest blob, in bytes (default ${DEFAULT_MAX_BYTES}); past it: SIZE_CAP
  --help               this text
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

function limitsOf(values: Record<string, unknown>, maxBytes = DEFAULT_MAX_BYTES): Limits {
  const count = (flag: string, fallback: number): number => {
    const text = values[flag];
    if (text === undefined) return fallback;
    const n = Number(text);
    if (typeof text !== 'string' || !/^[0-9]+$/.test(text) || !Number.isSafeInteger(n)) {
      throw new UsageError(`--${flag} takes a whole number, got ${JSON.stringify(text)}`);
    }
    return n;
  };
  return { maxBytes: count('max-bytes', maxBytes), maxPoints: count('max-points', DEFAULT_MAX_POINTS) };
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
  const input = await openInput(file, limits.maxBytes);
  await init();
  const report = (label: string, bytes: Uint8Array, indent: number) =>
    about(label, () => {
      const blob = openBlob(bytes, { maxDecompressedBytes: limits.maxBytes, maxPoints: limits.maxPoints });
      try {
        const report = inspect(blob);
        return values.json ? `${JSON.stringify({ file: label, size: bytes.length, ...report }, null, indent)}\n` : formatReport(label, report);
      } finally {
        blob.free();
      }
    });
  if ('blob' in input) {
    print(report(file, input.blob, 2));
    return 0;
  }
  // A stream of blobs: each blob's report as it arrives (--json: one line each), `file#frame` naming it.
  const stdout = streamSink(process.stdout);
  let frame = 0;
  for await (const bytes of about(file, () => splitStream(input.stream, { maxBlobBytes: limits.maxBytes }), true)) {
    await stdout.write(report(`${file}#${frame++}`, bytes, 0));
  }
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
  const decodeLimits = { maxDecompressedBytes: limits.maxBytes, maxPoints: limits.maxPoints };
  await init();
  const stdout = streamSink(process.stdout);
  // Whether the current blob's output has begun: a failure then ends its line first.
  let begun = false;
  const sink = { write: (text: string) => ((begun ||= text.length > 0), stdout.write(text)) };
  // Several blobs (several files, or a stream of blobs): one line each. One file: known once it is open.
  let many = files.length > 1 ? true : undefined;
  let failed = 0;
  if (csv && many) await sink.write(csvHeader(true));
  const output = async (blob: Blob, label: string) => {
    try {
      if (csv) await writeCsvRows(sink, blob, many ? label : undefined);
      else {
        checkBlob(blob);
        await writeJson(sink, streamDocument(blob, exact), many ? 0 : 2);
        await sink.write('\n');
      }
      // Its line is complete: a failure after it starts a line of its own.
      begun = false;
    } finally {
      blob.free();
    }
  };
  for (const file of files) {
    begun = false;
    try {
      const input = await openInput(file, limits.maxBytes);
      if (many === undefined) {
        many = 'stream' in input;
        if (csv) await sink.write(csvHeader(many));
      }
      if ('blob' in input) await output(openBlob(input.blob, decodeLimits), file);
      else {
        // Each blob as it arrives; the CSV file column names it `file#frame`.
        let frame = 0;
        for await (const blob of decodeStream(input.stream, { ...decodeLimits, maxBlobBytes: limits.maxBytes })) await output(blob, `${file}#${frame++}`);
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

async function catCommand(argv: string[]): Promise<number> {
  const { values, positionals: files } = parseCommandLine(argv, { ...COMMON, 'max-bytes': { type: 'string' }, output: { type: 'string', short: 'o' } });
  if (values.help) return help('cat');
  if (files.length === 0) throw new UsageError('which blobs? (mebo cat <blob>... -o <stream>)');
  const output = typeof values.output === 'string' ? values.output : '-';
  if (output === '-' && process.stdout.isTTY) throw new UsageError('not writing a binary stream to a terminal: redirect stdout or give -o <file>');
  const { maxBytes } = limitsOf(values);
  await init();
  // Every blob in turn, read as the output takes it: a stream's blobs copied frame by frame.
  async function* blobs(): AsyncGenerator<Uint8Array> {
    for (const file of files) {
      const input = await openInput(file, maxBytes);
      if ('stream' in input) {
        yield* about(file, () => splitStream(input.stream, { maxBlobBytes: maxBytes }), true);
        continue;
      }
      if (about(file, () => blobKind(input.blob)) === undefined) {
        throw Object.assign(new Error(`${file}: BAD_MAGIC: neither a mebo blob nor a stream of blobs`), { reported: true });
      }
      yield input.blob;
    }
  }
  await writeOutput(output, frameBlobs(blobs()));
  return 0;
}

async function splitCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, { ...COMMON, 'max-bytes': { type: 'string' }, output: { type: 'string', short: 'o' } });
  if (values.help) return help('split');
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'which stream? (mebo split <stream> -o <dir>)' : 'split takes one stream');
  const dir = values.output;
  if (typeof dir !== 'string') throw new UsageError('where to? -o <dir> is required');
  const { maxBytes } = limitsOf(values);
  const file = positionals[0]!;
  const input = await openInput(file, maxBytes);
  if ('blob' in input) throw Object.assign(new Error(`${file}: BAD_MAGIC: not a stream of blobs (it does not start with "MBS1")`), { reported: true });
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new FileError((error as NodeJS.ErrnoException).code ?? 'FILE', dir, `cannot make the directory: ${(error as Error).message}`);
  }
  const stdout = streamSink(process.stdout);
  let frame = 0;
  for await (const bytes of about(file, () => splitStream(input.stream, { maxBlobBytes: maxBytes }), true)) {
    const path = join(dir, `${String(frame++).padStart(6, '0')}.mebo`);
    try {
      writeFileSync(path, bytes);
    } catch (error) {
      throw new FileError((error as NodeJS.ErrnoException).code ?? 'FILE', path, `cannot write: ${(error as Error).message}`);
    }
    await stdout.write(`${path}\n`);
  }
  return 0;
}

/**
 * Write a binary stream to stdout ('-') or to a file: into a temporary file
 * beside it, renamed when complete, so that a failure leaves no partial file.
 */
async function writeOutput(output: string, stream: ReadableStream<Uint8Array>): Promise<void> {
  const temporary = output === '-' ? undefined : `${output}.${process.pid}.part`;
  let target: NodeJS.WritableStream = process.stdout;
  if (temporary !== undefined) {
    try {
      target = createWriteStream(temporary, { flags: 'wx' });
      await new Promise<void>((resolve, reject) => target.once('open', () => resolve()).once('error', reject));
    } catch (error) {
      throw new FileError((error as NodeJS.ErrnoException).code ?? 'FILE', output, `cannot write: ${(error as Error).message}`);
    }
  }
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!target.write(value)) await new Promise((resolve) => target.once('drain', resolve));
    }
    if (temporary !== undefined) {
      await new Promise<void>((resolve, reject) => target.end(() => resolve()).once('error', reject));
      renameSync(temporary, output);
    }
  } catch (error) {
    void reader.cancel().catch(() => {});
    if (temporary !== undefined) {
      (target as unknown as { destroy(): void }).destroy();
      rmSync(temporary, { force: true });
    }
    throw error;
  }
}

async function encodeCommand(argv: string[]): Promise<number> {
  const specs: Specs = { ...COMMON, ...CSV_FLAGS, 'max-bytes': { type: 'string' }, output: { type: 'string', short: 'o' } };
  for (const { flag, type } of Object.values(ENCODE_OPTIONS)) {
    specs[flag] = { type };
    if (type === 'boolean') specs[`no-${flag}`] = { type };
  }
  const { values, positionals } = parseCommandLine(argv, specs);
  if (values.help) return help('encode');
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'which input? (mebo encode <input.json|input.csv> -o <blob>)' : 'encode takes one input file');
  const output = values.output;
  if (typeof output !== 'string') throw new UsageError('where to? -o <blob> is required (-o - writes to stdout)');
  if (output === '-' && process.stdout.isTTY) throw new UsageError('not writing a binary blob to a terminal: redirect stdout or give -o <file>');
  const flags = new Map<OptionField, string | boolean>();
  for (const [field, { flag }] of Object.entries(ENCODE_OPTIONS)) {
    const value = values[flag] ?? (values[`no-${flag}`] ? false : undefined);
    if (value !== undefined) flags.set(field as OptionField, value as string | boolean);
  }
  const reading = csvReading(values);
  const input = positionals[0]!;
  const { maxBytes } = limitsOf(values, DEFAULT_MAX_TEXT_BYTES);
  if (maxBytes > constants.MAX_STRING_LENGTH) {
    throw new UsageError(`--max-bytes ${maxBytes} is past the longest text Node reads at once (${constants.MAX_STRING_LENGTH} bytes)`);
  }
  const text = await readInput(input, maxBytes);
  // CSV is told by its header, as a stream of blobs is by MBS1; anything else is read as JSON.
  let encode: () => Uint8Array;
  if (isCsv(text)) encode = () => encodeCsv(text, reading ?? { kind: 'numeric' }, flags).bytes;
  else {
    if (reading !== undefined) throw new UsageError(`--kind and --metric are for CSV input: ${input} is not CSV (a JSON document says its kind)`);
    let doc: unknown;
    try {
      doc = JSON.parse(text.toString('utf8'));
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      throw new InputError(`${input}: not valid JSON (${error.message}), nor CSV (its first line is no header ${csvHeader(false).trim()})`);
    }
    encode = () => encodeDocument(doc, flags).bytes;
  }
  await init();
  const bytes = about(input, encode);
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

/** An SDK or input failure about `file`, as the one line the CLI reports. */
function reported(file: string, error: unknown): Error {
  if (error instanceof UsageError || error instanceof FileError || (error as { reported?: boolean }).reported) return error as Error;
  const { code, message } = describeError(error);
  const line = error instanceof InputError ? `${file}: ${message}` : `${file}: ${code}: ${message}`;
  return Object.assign(new Error(line), { reported: true });
}

/** Run `fn`; an SDK or input failure is reported with the file it is about. */
function about<T>(file: string, fn: () => T): T;
/** The same for the items of an async iterable `fn` returns: a failure while iterating it too. */
function about<T>(file: string, fn: () => AsyncIterable<T>, iterated: true): AsyncIterable<T>;
function about<T>(file: string, fn: () => T | AsyncIterable<T>, iterated?: true): T | AsyncIterable<T> {
  let value: T | AsyncIterable<T>;
  try {
    value = fn();
  } catch (error) {
    throw reported(file, error);
  }
  if (!iterated) return value;
  const items = value as AsyncIterable<T>;
  return (async function* () {
    try {
      yield* items;
    } catch (error) {
      throw reported(file, error);
    }
  })();
}

function help(topic: string): number {
  print(HELP[topic]!);
  return 0;
}

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  inspect: inspectCommand,
  decode: decodeCommand,
  cat: catCommand,
  split: splitCommand,
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
