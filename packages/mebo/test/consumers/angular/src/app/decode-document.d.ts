// decode-document.js (copied beside this file by the test) as the app's
// strict TypeScript sees it.

export declare function decodeSample(
  mebo: typeof import('mebo'),
  sample: { name: string; bytes: Uint8Array }[],
): { variant: string | null; simd: boolean; results: Record<string, unknown> };
