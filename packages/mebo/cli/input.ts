// The CLI's inputs: a file, or stdin for '-', read whole (a blob, a JSON
// document) or, when it starts with `MBS1`, as a stream of blobs read as it
// comes. Reading failures are FileErrors, with the system's code.

import { createReadStream } from 'node:fs';
import { isBlobStream } from '../src/entries/index.js';

/** A file that cannot be read or written; `code` is the system's (ENOENT, ...). */
export class FileError extends Error {
  constructor(
    readonly code: string,
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}
/** Why a file cannot be read, in words. */
function fileError(file: string, error: unknown): FileError {
  if (error instanceof FileError) return error;
  const e = error as NodeJS.ErrnoException;
  const reason = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : e.code === 'EACCES' ? 'permission denied' : e.message;
  return new FileError(e.code ?? 'FILE', file, reason);
}

/** An input read far enough to know what it is: one blob (read whole), or a stream of blobs (its chunks, the first ones included). */
export type Input = { blob: Buffer } | { stream: AsyncIterable<Uint8Array> };

/**
 * A file (or stdin for '-') read whole, a chunk at a time, refused with
 * SIZE_CAP as soon as it passes `maxBytes`: endless input never grows past
 * the bound.
 */
export async function readInput(file: string, maxBytes: number): Promise<Buffer> {
  const input = await openInput(file, maxBytes, false);
  return (input as { blob: Buffer }).blob;
}

/**
 * Open a file (or stdin for '-') and read its first bytes: a stream of blobs
 * (`MBS1`, when `streams`) is handed on as chunks, read as they are consumed;
 * anything else is read whole as one blob, refused with SIZE_CAP past `maxBytes`.
 */
export async function openInput(file: string, maxBytes: number, streams = true): Promise<Input> {
  const source: NodeJS.ReadableStream = file === '-' ? process.stdin : createReadStream(file);
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let size = 0;
  const next = async (): Promise<Buffer | undefined> => {
    try {
      const step = await chunks.next();
      return step.done ? undefined : step.value;
    } catch (error) {
      throw fileError(file, error);
    }
  };
  try {
    while (size < 4) {
      const chunk = await next();
      if (chunk === undefined) break;
      head.push(chunk);
      size += chunk.length;
    }
    if (streams && isBlobStream(Buffer.concat(head, Math.min(size, 4)))) {
      return {
        stream: (async function* () {
          try {
            yield* head;
            // The rest as it is consumed; a read error ends the stream (decodeStream reports it).
            for (;;) {
              const step = await chunks.next();
              if (step.done) return;
              yield step.value;
            }
          } finally {
            // A reader that stopped early: the file is closed.
            await chunks.return?.();
          }
        })(),
      };
    }
    for (;;) {
      if (size > maxBytes) throw new FileError('SIZE_CAP', file, `SIZE_CAP: input passes --max-bytes ${maxBytes}`);
      const chunk = await next();
      if (chunk === undefined) break;
      head.push(chunk);
      size += chunk.length;
    }
    return { blob: Buffer.concat(head, size) };
  } catch (error) {
    if (file !== '-') (source as unknown as { destroy(): void }).destroy();
    throw error;
  }
}
