// Types of series-document.js, for the Node side of chromium.test.ts.
export function seriesSample(mebo: typeof import('../../src/entries/index.js'), sample: { name: string; bytes: Uint8Array }[]): Record<string, unknown>;
