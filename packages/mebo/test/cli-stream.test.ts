// The `mebo` command line with streams of blobs, run as a child process:
// cat → decode / inspect / split round trips (files and stdin), each blob of
// a stream printed as the same blob alone prints, and bad streams.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isOneLineFailure, mebo, parseCsv } from './helpers/cli.js';
import { framed } from './helpers/stream.js';
import { manifest, VECTORS } from './helpers/vectors.js';

const tmp = mkdtempSync(join(tmpdir(), 'mebo-cli-stream-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// A few vectors of both kinds and both byte orders.
const cases = manifest().filter((c, i) => i % 97 === 0 || ['num-special-delta-s2-gorilla-zstd-notags-be-v1', 'txt-status1-tagged-delta-zstd-tags-be'].includes(c.name));
const paths = cases.map((c) => join(VECTORS, c.file));
const bytes = paths.map((p) => new Uint8Array(readFileSync(p)));

describe('mebo cat', () => {
  it('writes the blobs as one stream of blobs, to a file or stdout, and copies the frames of a stream given as input', () => {
    expect(new Set(cases.map((c) => c.kind))).toEqual(new Set(['numeric', 'text']));
    const out = join(tmp, 'all.mbs');
    const r = mebo(['cat', ...paths, '-o', out]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(new Uint8Array(readFileSync(out))).toEqual(framed(bytes));
    const toStdout = mebo(['cat', ...paths.slice(0, 2)]);
    expect(new Uint8Array(toStdout.stdoutBytes)).toEqual(framed(bytes.slice(0, 2)));
    // A stream among the inputs: its blobs, then the next.
    const nested = mebo(['cat', out, paths[0]!, '-o', '-']);
    expect(new Uint8Array(nested.stdoutBytes)).toEqual(framed([...bytes, bytes[0]!]));
  });

  it('refuses what is not a blob, a missing file, and leaves no partial output file', () => {
    const junk = join(tmp, 'junk.bin');
    writeFileSync(junk, 'definitely not a blob');
    const out = join(tmp, 'refused.mbs');
    const r = mebo(['cat', paths[0]!, junk, '-o', out]);
    expect(isOneLineFailure(r)).toBe(true);
    expect(r.stderr).toMatch(/^mebo cat: .*junk\.bin: BAD_MAGIC/);
    expect(r.status).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(tmp).filter((f) => f.startsWith('refused'))).toEqual([]);
    const missing = mebo(['cat', join(tmp, 'nope.mebo'), '-o', out]);
    expect(isOneLineFailure(missing)).toBe(true);
    expect(missing.stderr).toMatch(/no such file/);
    expect(mebo(['cat']).status).toBe(2);
  });
});

describe('mebo decode and inspect read a stream of blobs', () => {
  it('decode prints one line per blob, the same document each blob alone prints; from a file and from stdin', () => {
    const stream = join(tmp, 'decode.mbs');
    writeFileSync(stream, framed(bytes));
    const alone = paths.map((p) => JSON.stringify(JSON.parse(mebo(['decode', '--exact', p]).stdout)));
    for (const r of [mebo(['decode', '--exact', stream]), mebo(['decode', '--exact', '-'], { input: Buffer.from(framed(bytes)) })]) {
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout.trimEnd().split('\n')).toEqual(alone);
    }
  });

  it('decode --csv names each blob of a stream <file>#<frame>', () => {
    const stream = join(tmp, 'csv.mbs');
    writeFileSync(stream, framed(bytes.slice(0, 3)));
    const rows = parseCsv(mebo(['decode', '--csv', stream]).stdout);
    expect(rows[0]).toEqual(['file', 'metric', 'timestamp', 'value', 'tag']);
    const names = [0, 1, 2].map((i) => `${stream}#${i}`);
    for (const row of rows.slice(1)) expect(names).toContain(row[0]);
    const alone = parseCsv(mebo(['decode', '--csv', paths[1]!]).stdout).slice(1);
    expect(rows.slice(1).filter((r) => r[0] === `${stream}#1`).map((r) => r.slice(1))).toEqual(alone);
  });

  it('inspect --json prints each blob of a stream as the blob alone, one line each', () => {
    const some = bytes.slice(0, 3);
    const stream = join(tmp, 'inspect.mbs');
    writeFileSync(stream, framed(some));
    const r = mebo(['inspect', '--json', stream]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBe(3);
    lines.forEach((line, i) => {
      const alone = JSON.parse(mebo(['inspect', '--json', paths[i]!]).stdout) as Record<string, unknown>;
      // The decode timings of auto's rows differ from run to run.
      const strip = (doc: Record<string, unknown>) => ({ ...doc, file: undefined, auto: undefined });
      expect(strip(line)).toEqual(strip(alone));
      expect(line.file).toBe(`${stream}#${i}`);
    });
    const text = mebo(['inspect', stream]);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`${stream}#2`);
  });

  it('bad streams: the blobs before, then one line on stderr with the code, exit 1', () => {
    const stream = framed(bytes.slice(0, 3));
    const cut = join(tmp, 'cut.mbs');
    writeFileSync(cut, stream.subarray(0, stream.length - 5));
    const r = mebo(['decode', '--exact', cut]);
    expect(r.status).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(3);
    expect(JSON.parse(lines[2]!)).toMatchObject({ file: cut, error: { code: 'TRUNCATED', message: expect.stringMatching(/frame 2/) } });
    expect(r.stderr).toMatch(/^mebo decode: .*cut\.mbs: TRUNCATED: .*frame 2/);
    expect(r.stderr.split('\n').length).toBe(2);

    const huge = join(tmp, 'huge.mbs');
    writeFileSync(huge, new Uint8Array([0x4d, 0x42, 0x53, 0x31, 0xff, 0xff, 0xff, 0xff]));
    const capped = mebo(['inspect', huge]);
    expect(isOneLineFailure(capped)).toBe(true);
    expect(capped.stderr).toMatch(/SIZE_CAP/);

    const corrupt = bytes.slice(0, 3);
    corrupt[1] = new Uint8Array(40);
    const bad = mebo(['decode', '-'], { input: Buffer.from(framed(corrupt)) });
    expect(bad.status).toBe(1);
    expect(bad.stdout.trimEnd().split('\n').length).toBe(2);
    expect(bad.stderr).toMatch(/BAD_MAGIC: frame 1 \(at byte \d+\)/);
  });
});

describe('mebo split', () => {
  it('writes each blob to its own file, from a file or stdin, byte for byte', () => {
    const stream = join(tmp, 'split.mbs');
    writeFileSync(stream, framed(bytes));
    for (const [source, input] of [[stream, undefined], ['-', Buffer.from(framed(bytes))]] as const) {
      const dir = join(tmp, `split-${source === '-' ? 'stdin' : 'file'}`);
      const r = mebo(['split', source, '-o', dir], { input });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const written = r.stdout.trimEnd().split('\n');
      expect(written).toEqual(bytes.map((_, i) => join(dir, `${String(i).padStart(6, '0')}.mebo`)));
      written.forEach((file, i) => expect(new Uint8Array(readFileSync(file))).toEqual(bytes[i]));
    }
  });

  it('refuses a single blob and garbage (BAD_MAGIC), writes the blobs of a cut stream, then TRUNCATED', () => {
    const single = mebo(['split', paths[0]!, '-o', join(tmp, 'single')]);
    expect(isOneLineFailure(single)).toBe(true);
    expect(single.stderr).toMatch(/BAD_MAGIC/);
    const stream = framed(bytes.slice(0, 3));
    const dir = join(tmp, 'split-cut');
    const cut = mebo(['split', '-', '-o', dir], { input: Buffer.from(stream.subarray(0, stream.length - 1)) });
    expect(isOneLineFailure(cut)).toBe(true);
    expect(cut.stderr).toMatch(/TRUNCATED: .*frame 2/);
    expect(readdirSync(dir).sort()).toEqual(['000000.mebo', '000001.mebo']);
    expect(mebo(['split', paths[0]!]).status).toBe(2);
  });
});
