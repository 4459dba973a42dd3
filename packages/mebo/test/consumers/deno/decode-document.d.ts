// The types of decode-document.js (copied beside main.ts by the test) for `deno check`.
export function decodeSample(
  mebo: unknown,
  sample: { name: string; bytes: Uint8Array }[],
): { variant: string | null; simd: boolean; results: Record<string, unknown> };
