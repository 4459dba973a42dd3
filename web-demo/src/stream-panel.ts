// The stream card: play the server's stream sample (or a dropped stream
// file) through the SDK's decodeStream, the chart growing as blobs arrive
// (redrawn at most once an animation frame), a progress bar of blobs and
// bytes, Cancel (an AbortSignal), and the stream's error, if any, in a line
// of its own, the blobs before it kept.

import * as mebo from 'mebo';
import { $, bytesText, integer } from './dom.js';
import { StreamedBlobs } from './streamed.js';

/** The server's sample route (stream-sample.mjs) and its bound on the pace. */
const SAMPLE_URL = 'stream/seattle.mbs';
const MAX_SECONDS = 60;

/** What the page publishes about the last stream for the headless check. */
export interface StreamReport {
  label: string;
  running: boolean;
  blobs: number;
  /** Blobs the server said it sends (X-Mebo-Blobs), when it said. */
  expectedBlobs: number | undefined;
  bytes: number;
  /** Content-Length or the file's size, when known. */
  totalBytes: number | undefined;
  /** Points decoded so far (every point of every blob). */
  points: number;
  /** Animation frames drawn while the stream ran. */
  frames: number;
  done: boolean;
  cancelled: boolean;
  error: string | undefined;
  /** The progress bar's value and maximum when the stream stopped. */
  progress: { value: number; max: number };
}

/** Whether `file` is a stream of blobs (it starts with `MBS1`) rather than a blob. */
export async function isStreamFile(file: File): Promise<boolean> {
  return mebo.isBlobStream(new Uint8Array(await file.slice(0, 4).arrayBuffer()));
}

/** What the panel asks of the page: show a stream's blobs as they grow, report. */
export interface StreamHost {
  /** The first blob arrived: open the view on it. */
  opened(streamed: StreamedBlobs): void;
  /** Redraw the open view (called at most once an animation frame). */
  grew(streamed: StreamedBlobs): void;
  report(report: StreamReport): void;
}

export class StreamPanel {
  private controller: AbortController | undefined;
  private runs = 0;

  constructor(private readonly host: StreamHost) {
    $('stream-cancel').addEventListener('click', () => this.cancel());
  }

  cancel(): void {
    this.controller?.abort(new DOMException('cancelled', 'AbortError'));
  }

  /** The server's sample at the pace the seconds field asks; on a static host (no route), the same stream as a file (`file`), at network speed. */
  async playSample(file: string, names: Record<string, string>): Promise<void> {
    const field = $<HTMLInputElement>('stream-seconds');
    const seconds = Math.min(MAX_SECONDS, Math.max(0, Number(field.value) || 0));
    await this.play('the Seattle stream sample', names, async (signal) => {
      let response = await fetch(`${SAMPLE_URL}?seconds=${seconds}`, { signal, cache: 'no-store' });
      if (response.status === 404) response = await fetch(file, { signal, cache: 'no-store' });
      if (!response.ok || !response.body) throw new Error(`${response.url}: HTTP ${response.status}`);
      const length = Number(response.headers.get('content-length'));
      const blobs = Number(response.headers.get('x-mebo-blobs'));
      return { body: response.body, totalBytes: length > 0 ? length : undefined, expectedBlobs: blobs > 0 ? blobs : undefined };
    });
  }

  /** A stream file from the user's disk, drawn as it is read. */
  async playFile(file: File): Promise<void> {
    await this.play(file.name, {}, async () => ({ body: file.stream(), totalBytes: file.size, expectedBlobs: undefined }));
  }

  /** Play the stream `open` gives; `names`: its metrics' names by id, where known (a sample's). */
  private async play(
    label: string,
    names: Record<string, string>,
    open: (signal: AbortSignal) => Promise<{ body: ReadableStream<Uint8Array>; totalBytes: number | undefined; expectedBlobs: number | undefined }>,
  ): Promise<void> {
    this.cancel();
    const run = ++this.runs;
    const controller = (this.controller = new AbortController());
    const { signal } = controller;
    const report: StreamReport = { label, running: true, blobs: 0, expectedBlobs: undefined, bytes: 0, totalBytes: undefined, points: 0, frames: 0, done: false, cancelled: false, error: undefined, progress: { value: 0, max: 0 } };
    const streamed = new StreamedBlobs(label, names);
    const error = $('stream-error');
    error.hidden = true;
    $<HTMLButtonElement>('stream-cancel').disabled = false;
    $<HTMLButtonElement>('stream-play').disabled = true;
    let pending = 0;
    const draw = () => {
      pending = 0;
      if (run !== this.runs) return;
      streamed.size = report.bytes;
      if (streamed.blobs > 0) {
        if (report.frames === 0) this.host.opened(streamed);
        else this.host.grew(streamed);
        report.frames++;
      }
      this.progress(report);
      this.host.report(report);
    };
    const later = () => {
      if (!pending) pending = requestAnimationFrame(draw);
    };
    try {
      const source = await open(signal);
      report.totalBytes = source.totalBytes;
      report.expectedBlobs = source.expectedBlobs;
      // Count bytes as decodeStream takes them, for the progress bar.
      const counted = source.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, out) {
            report.bytes += chunk.byteLength;
            out.enqueue(chunk);
            later();
          },
        }),
      );
      for await (const blob of mebo.decodeStream(counted, { signal })) {
        try {
          streamed.add(blob);
        } finally {
          blob.free();
        }
        report.blobs = streamed.blobs;
        report.points = streamed.totalPoints;
        later();
      }
      report.done = true;
    } catch (e) {
      if (signal.aborted) report.cancelled = true;
      else {
        report.error = e instanceof mebo.MeboError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);
        error.textContent = `${label}: ${report.error}${report.blobs ? ` (the ${integer.format(report.blobs)} blobs before it are drawn)` : ''}`;
        error.hidden = false;
      }
    } finally {
      if (run === this.runs) {
        cancelAnimationFrame(pending);
        report.running = false;
        draw();
        $<HTMLButtonElement>('stream-cancel').disabled = true;
        $<HTMLButtonElement>('stream-play').disabled = false;
        this.controller = undefined;
      }
    }
  }

  private progress(r: StreamReport): void {
    const bar = $<HTMLProgressElement>('stream-progress');
    // By bytes when the length is known (it includes the frame headers), else by blobs when their count is.
    if (r.totalBytes) {
      bar.max = r.totalBytes;
      bar.value = r.bytes;
    } else if (r.expectedBlobs) {
      bar.max = r.expectedBlobs;
      bar.value = r.blobs;
    } else {
      bar.removeAttribute('value');
    }
    r.progress = { value: bar.value, max: bar.max };
    const of = (n: number, total: number | undefined, f: (x: number) => string) => (total ? `${f(n)} / ${f(total)}` : f(n));
    const state = r.running ? '' : r.cancelled ? ' · cancelled' : r.error ? ' · stopped by an error' : ' · done';
    $('stream-status').textContent = `${of(r.blobs, r.expectedBlobs, (x) => integer.format(x))} blobs · ${of(r.bytes, r.totalBytes, bytesText)} · ${integer.format(r.points)} points${state}`;
  }
}
