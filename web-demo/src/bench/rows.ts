// The benchmark figures the panel shows, in the row schema of the
// repository's bench-results.json (written by `npm run bench`), and the two
// reference files of testdata/reference.

/** One measured figure: a runtime doing an operation on a configuration's blob. */
export interface BenchRow {
  config: string;
  /** `rust-native`, `wasm-node`, `wasm-browser`, `wasm-browser-scalar` (bench-results.json also has `wasm-chromium`, `go-reference`, …). */
  runtime: string;
  /** `decode` (fresh arrays), `decode-into` (kept arrays), `cold-start`, `first-decode`, `encode` (a configuration written from its points), `encode-auto` (config `auto-<prefer>`). */
  op: string;
  points: number;
  bytes: number;
  median_ns: number;
  min_ns: number;
  runs: number;
  /** go-reference rows: whether its decode matched the input (false: a wrong result was timed), and the first difference. */
  correct?: boolean;
  mismatch?: string;
  /** go-reference rows: GOMAXPROCS of the run. */
  gomaxprocs?: number;
  /** encode rows: the bytes equal the recorded blob's (the reference's). */
  identical?: boolean;
  /** encode-auto rows: the configuration `auto` wrote. */
  chosen?: string;
}

/** bench-results.json, as far as the panel reads it. */
export interface BenchResults {
  machine: { cpu?: string; cores?: number; node?: string; rustc?: string; date?: string; plan?: string };
  results: BenchRow[];
}

/** web-demo/dist/bench/manifest.json, written by web-demo/build.mjs. */
export interface BenchManifest {
  cases: { name: string; config: string; kind: 'numeric' | 'text'; file: string; bytes: number; gzip: number; points: number }[];
  /** The same 50,000 numeric points as JSON and as Arrow IPC. */
  json: { bytes: number; gzip: number };
  arrow: { bytes: number; gzip: number };
  /** Sizes of the two wasm builds. */
  wasm: Record<'simd' | 'scalar', number>;
}

/** testdata/reference/go-v1.9-epyc.json: the reference timed on the project's machine kind. */
export interface GoReference {
  machine: string;
  rows: { name: string; decode_materialize_ns: number }[];
}

/** testdata/reference/seed-x86.json: the documented figures (µs per whole blob). */
export interface SeedReference {
  machine: string;
  decode_iterate_250pts: Record<string, { total: number }>;
}

/** The machine the local API runs on (GET /api/bench). */
export interface ApiInfo {
  runtimes: string[];
  plans: string[];
  machine: { cpu?: string; cores?: number; node?: string; rustc?: string; platform?: string };
}

/** Million points per second for `points` decoded in `ns`. */
export const mpps = (points: number, ns: number | undefined) => (ns === undefined || ns <= 0 ? undefined : (points / ns) * 1e3);

/** Median and minimum of a list of samples, as a row's `median_ns` / `min_ns`. */
export function summarize(samples: number[]): Pick<BenchRow, 'median_ns' | 'min_ns' | 'runs'> {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median_ns: Math.round(sorted[sorted.length >> 1]), min_ns: Math.round(sorted[0]), runs: sorted.length };
}
