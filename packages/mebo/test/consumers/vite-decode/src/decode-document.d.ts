// Types of decode-document.js, the decoder every consumer test shares (copied
// beside this file by the test).
export function decodeSample(
  mebo: unknown,
  sample: { name: string; bytes: Uint8Array }[],
): { variant: string | null; simd: boolean; results: Record<string, unknown> };
