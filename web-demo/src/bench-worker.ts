// A Web Worker that times decode of the bench blobs with one wasm build (the
// SDK's init is once per realm, so each build gets its own worker). Same
// timing loop and operations as `npm run bench` (bench/harness.mjs).

import * as mebo from 'mebo';
import { PLANS, decodeNumeric, decodeText, measure } from '../../bench/harness.mjs';

export interface BenchCase {
  name: string;
  config: string;
  kind: 'numeric' | 'text';
  file: string;
}

export type BenchRequest = { variant: mebo.WasmVariant; quick: boolean; cases: BenchCase[] };

export type BenchMessage =
  | { type: 'ready'; variant: mebo.WasmVariant; isolated: boolean }
  | { type: 'row'; variant: mebo.WasmVariant; config: string; median_ns: number; min_ns: number; runs: number; bytes: number }
  | { type: 'done'; variant: mebo.WasmVariant }
  | { type: 'error'; message: string };

const scope = globalThis as unknown as {
  postMessage(message: BenchMessage): void;
  onmessage: ((event: MessageEvent<BenchRequest>) => void) | null;
  crossOriginIsolated?: boolean;
};

async function run({ variant, quick, cases }: BenchRequest): Promise<void> {
  await mebo.init({ wasm: fetch(`wasm/mebo_${variant}.wasm`), variant });
  scope.postMessage({ type: 'ready', variant, isolated: scope.crossOriginIsolated === true });
  const plan = quick ? PLANS.quick : PLANS.full;
  for (const c of cases) {
    const response = await fetch(c.file);
    if (!response.ok) throw new Error(`${c.file}: HTTP ${response.status}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const op = c.kind === 'text' ? () => decodeText(mebo, bytes) : () => decodeNumeric(mebo, bytes);
    const t = measure(op, plan);
    scope.postMessage({ type: 'row', variant, config: c.config, median_ns: t.median_ns, min_ns: t.min_ns, runs: t.runs, bytes: bytes.length });
  }
  scope.postMessage({ type: 'done', variant });
}

scope.onmessage = (event) => {
  run(event.data).catch((error: unknown) => {
    const message = error instanceof mebo.MeboError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
    scope.postMessage({ type: 'error', message });
  });
};
