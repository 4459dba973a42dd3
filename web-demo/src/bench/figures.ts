// Every figure the benchmark panel shows, in one place: this run's rows, the
// recorded ones the page was built with, and the reference's. The panel's
// views read from here and never keep figures of their own.

import type { ApiInfo, BenchManifest, BenchResults, BenchRow, GoReference, SeedReference } from './rows.js';

export type Plan = 'quick' | 'full';
export type HostRuntime = 'rust-native' | 'wasm-node';
export type Source = 'live' | 'bench-results.json' | 'none';

/** What the page publishes for automation (web-demo/check.mjs). */
export interface BenchState {
  done: boolean;
  running: boolean;
  plan: Plan | undefined;
  /** This run's rows, bench-results.json schema. */
  rows: BenchRow[];
  /** Where native and Node figures come from: `live`, `bench-results.json` or `none`. */
  sources: Record<HostRuntime, Source>;
  api: boolean;
  error: string | undefined;
  cancelled: boolean;
  /** Series drawn on the throughput chart in the last paint. */
  charted: { label: string; color: string }[];
}

/** What the page loaded before any run: the bench blobs, the recorded figures, the local API if any. */
export interface Loaded {
  manifest: BenchManifest;
  fileResults: BenchResults | undefined;
  go: GoReference | undefined;
  seed: SeedReference | undefined;
  api: ApiInfo | undefined;
}

/** The browser the page runs in, as the sources list describes it. */
export interface BrowserInfo {
  name: string;
  cores: number | undefined;
  isolated: boolean;
  timerUs: number;
}

export type Case = BenchManifest['cases'][number];

export class Figures {
  readonly cases: Case[];
  readonly caseOf: Map<string, Case>;
  readonly state: BenchState;

  constructor(readonly loaded: Loaded) {
    this.cases = loaded.manifest.cases;
    this.caseOf = new Map(this.cases.map((c) => [c.config, c]));
    this.state = {
      done: false,
      running: false,
      plan: undefined,
      rows: [],
      sources: { 'rust-native': 'none', 'wasm-node': 'none' },
      api: loaded.api !== undefined,
      error: undefined,
      cancelled: false,
      charted: [],
    };
  }

  /** This run's row. */
  live(config: string, runtime: string, op: string): BenchRow | undefined {
    return this.state.rows.find((r) => r.config === config && r.runtime === runtime && r.op === op);
  }

  /** Native and Node: this run's row, else (no API) the built-in bench-results.json's. */
  hostRow(config: string, runtime: HostRuntime, op: string): BenchRow | undefined {
    return this.live(config, runtime, op) ?? (this.state.api ? undefined : this.loaded.fileResults?.results.find((r) => r.config === config && r.runtime === runtime && r.op === op));
  }

  /** The reference's recorded decode + Materialize on the project's machine kind, ns. */
  goNs(config: string): number | undefined {
    return this.loaded.go?.rows.find((r) => r.name === this.caseOf.get(config)?.name)?.decode_materialize_ns;
  }

  /** The documented x86 decode + iterate, ns. */
  seedNs(config: string): number | undefined {
    const total = this.loaded.seed?.decode_iterate_250pts[config]?.total;
    return total === undefined ? undefined : total * 1e3;
  }

  /** Whether the local API can time the reference in this run. */
  get referenceLive(): boolean {
    return this.loaded.api?.runtimes.includes('go-reference') ?? false;
  }

  updateSources(): void {
    for (const runtime of ['rust-native', 'wasm-node'] as const) {
      this.state.sources[runtime] = this.state.rows.some((r) => r.runtime === runtime)
        ? 'live'
        : !this.state.api && this.loaded.fileResults?.results.some((r) => r.runtime === runtime)
          ? 'bench-results.json'
          : 'none';
    }
  }
}

export const nsOf = (row: BenchRow | undefined) => row?.median_ns;
