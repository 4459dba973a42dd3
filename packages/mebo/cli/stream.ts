// Output written as it is made, so decoding a large blob holds one metric's
// columns and one chunk of its text at a time, never the whole document.
// The JSON is byte for byte what JSON.stringify(document, null, 2) (or
// without indentation) gives; a write waits while stdout drains.

/** Where text goes: a write resolves once the text may be followed by more. */
export interface Sink {
  write(text: string): Promise<void>;
}

/** A sink over a Node stream, waiting for 'drain' when its buffer is full. */
export function streamSink(stream: NodeJS.WritableStream): Sink {
  return {
    write(text: string): Promise<void> {
      if (text.length === 0 || stream.write(text)) return Promise.resolve();
      return new Promise((resolve) => stream.once('drain', resolve));
    },
  };
}

/** A column of `length` JSON values made a chunk at a time (`slice(start, end)`). */
export class Points {
  constructor(
    readonly length: number,
    readonly slice: (start: number, end: number) => unknown[],
  ) {}
}

/** Items made one at a time when written (a blob's metrics). */
export class Lazy {
  constructor(readonly items: Iterable<unknown>) {}
}

/** Values per chunk of a column. */
const CHUNK = 1 << 14;

/** Write `value` as JSON: `indent` 2 for JSON.stringify's pretty form, 0 for compact. */
export async function writeJson(sink: Sink, value: unknown, indent: number, depth = 0): Promise<void> {
  const inner = indent > 0 ? `\n${' '.repeat(indent * (depth + 1))}` : '';
  const outer = indent > 0 ? `\n${' '.repeat(indent * depth)}` : '';
  if (value instanceof Points) {
    if (value.length === 0) return sink.write('[]');
    for (let start = 0; start < value.length; start += CHUNK) {
      const part = value.slice(start, Math.min(value.length, start + CHUNK));
      await sink.write((start === 0 ? '[' : ',') + part.map((x) => inner + JSON.stringify(x)).join(','));
    }
    return sink.write(`${outer}]`);
  }
  if (value instanceof Lazy || Array.isArray(value)) {
    let first = true;
    for (const item of value instanceof Lazy ? value.items : value) {
      await sink.write((first ? '[' : ',') + inner);
      first = false;
      await writeJson(sink, item, indent, depth + 1);
    }
    return sink.write(first ? '[]' : `${outer}]`);
  }
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return sink.write('{}');
    let first = true;
    for (const [key, v] of entries) {
      await sink.write(`${first ? '{' : ','}${inner}${JSON.stringify(key)}:${indent > 0 ? ' ' : ''}`);
      first = false;
      await writeJson(sink, v, indent, depth + 1);
    }
    return sink.write(`${outer}}`);
  }
  return sink.write(JSON.stringify(value));
}
