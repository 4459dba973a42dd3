// What the page says about the open blob: its options and sizes, and the
// module's memory.

import * as mebo from 'mebo';
import { $, bytesText, definitions, integer, timeText } from './dom.js';
import type { Opened } from './view.js';

export function renderOptions(blob: Opened): void {
  const { kind, size, totalPoints, metrics, decodeMs, warmMs, options, blobs } = blob;
  $('options').replaceChildren(
    ...definitions([
      ['kind', blobs > 1 ? `${kind} set of ${blobs} blobs` : kind],
      ['size', `${bytesText(size)} (${integer.format(size)} bytes)`],
      ['metrics', integer.format(metrics.length)],
      ['points', integer.format(totalPoints)],
      ['bytes / point', totalPoints ? (size / totalPoints).toFixed(2) : '-'],
      ['start time', timeText(Number(blob.startTime) / 1000)],
      [
        'decoded in',
        blob.decoded ??
          `${warmMs.toFixed(2)} ms (${blobs > 1 ? 'open + materialize' : kind === 'numeric' ? 'open + columnsView' : 'open + decodeAll'}); the first run, which also compiles the decoder, ${decodeMs.toFixed(2)} ms`,
      ],
      ...Object.entries(options).map(([key, value]): [string, string] => [key, String(value)]),
    ]),
  );
}

/** The module's memory (mebo.memoryInfo()): WebAssembly memory only grows, so a large blob leaves its peak behind. */
export function renderMemory(): mebo.MemoryInfo {
  const info = mebo.memoryInfo();
  const objects = `${info.liveHandles} SDK object${info.liveHandles === 1 ? '' : 's'} alive`;
  $('memory').textContent = `module memory ${bytesText(info.memoryBytes)} (peak ${bytesText(info.peakMemoryBytes)}), ${objects}${info.resets ? `, ${info.resets} reset${info.resets === 1 ? '' : 's'}` : ''}`;
  return info;
}
