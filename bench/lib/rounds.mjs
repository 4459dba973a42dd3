// Running the benchmark: every runtime once per round, in turn, each in a
// process (or page) of its own; then one row per (config, runtime, op) over
// the rounds, with the reference's figures beside it.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Run `rounds` rounds of the runtimes `wants` accepts. `goBinary` is the
 * built reference harness (undefined: the reference is not timed). Returns
 * the merged rows, the round-1 breakdowns, and what the Chromium run reported.
 */
export async function runRounds({ rounds, quick, wants, goBinary, benchDir, tmp, log }) {
  /** Run a child that writes JSON to `out`; returns what it wrote. */
  function child(what, command, args, out) {
    log(`bench: ${what}`);
    const result = spawnSync(command, args, { stdio: ['ignore', 2, 2], cwd: ROOT });
    if (result.status !== 0) throw new Error(`${what} exited with ${result.status ?? result.signal}`);
    return JSON.parse(readFileSync(out, 'utf8'));
  }

  function nodeRunner(variant, extra) {
    const out = join(tmp, `node-${variant}.json`);
    const script = join(ROOT, 'bench/runners/bench-node.mjs');
    return child(`wasm-node (${variant})`, process.execPath, [script, '--variant', variant, '--out', out, ...extra, ...(quick ? ['--quick'] : [])], out);
  }

  const roundRows = []; // every round's rows; merged below
  const breakdown = [];
  const chromium = {};
  // Each round runs every runtime once, in turn, so slow drifts of the machine's
  // load (other jobs) spread over all runtimes instead of skewing one of them.
  for (let round = 1; round <= rounds; round++) {
    if (rounds > 1) log(`bench: round ${round} of ${rounds}`);
    const rows = [];
    if (wants('rust-native')) {
      const out = join(tmp, 'native.json');
      rows.push(...child('rust-native', join(ROOT, 'target/release/mebo-bench'), ['--json', out, ...(quick ? ['--quick'] : [])], out));
    }
    if (goBinary) {
      const out = join(tmp, 'go.json');
      rows.push(...child('go-reference', goBinary, ['-bench-dir', benchDir, '-out', out, ...(quick ? ['-quick'] : [])], out));
    }
    if (wants('wasm-node') || wants('baselines')) {
      const extra = [...(wants('wasm-node') ? ['--encode', '--decimate', '--pool'] : ['--no-decode']), ...(wants('wasm-node') && round === 1 ? ['--breakdown'] : []), ...(wants('baselines') ? ['--baselines'] : [])];
      const written = nodeRunner('simd', extra);
      rows.push(...written.rows);
      breakdown.push(...written.breakdown);
    }
    if (wants('wasm-node-scalar')) rows.push(...nodeRunner('scalar', []).rows);
    if (wants('wasm-node-core')) rows.push(...nodeRunner('core', []).rows);
    if (wants('wasm-chromium')) {
      log('bench: wasm-chromium');
      const { runChromium } = await import('./chromium.mjs');
      const result = await runChromium({ quick, log, breakdown: round === 1 });
      rows.push(...result.rows);
      breakdown.push(...result.breakdown);
      chromium.version = result.version;
      chromium.crossOriginIsolated = result.crossOriginIsolated;
    }
    roundRows.push(rows);
  }
  return { rows: mergeRounds(roundRows), breakdown, chromium };
}

/** Per row: the median over rounds of the per-round medians, the least minimum, all samples counted. */
function mergeRounds(roundRows) {
  return roundRows[0].map((first) => {
    const same = roundRows.map((rs) => rs.find((r) => r.config === first.config && r.runtime === first.runtime && r.op === first.op)).filter(Boolean);
    const medians = same.map((r) => r.median_ns).sort((a, b) => a - b);
    return {
      ...first,
      median_ns: medians[medians.length >> 1],
      min_ns: Math.min(...same.map((r) => r.min_ns)),
      runs: same.reduce((n, r) => n + r.runs, 0),
      ...(same.length > 1 ? { round_medians_ns: same.map((r) => r.median_ns) } : {}),
    };
  });
}

/**
 * The merged rows with the reference's figures: lookups by configuration and
 * each decode and encode row's ratios against the reference timed in this run (`go run`,
 * its decode + Materialize or its encode of the same input),
 * the recorded one (`go epyc`, testdata/reference/go-v1.9-epyc.json) and the
 * documented x86 figures (seed-x86.json).
 */
export function withReferences(rows, { cases, goRows, seed, configName }) {
  const caseByConfig = new Map(cases.map((c) => [configName(c), c]));
  const goDecodeNs = (config) => goRows.find((r) => r.name === caseByConfig.get(config)?.name)?.decode_materialize_ns;
  const seedNs = (config, op) => {
    const us = op === 'encode' ? seed.encode_250pts[config] : seed.decode_iterate_250pts[config]?.total;
    return us === undefined ? undefined : us * 1e3;
  };
  /** The reference timed in this run (go-reference rows, `decode` or `encode`), when Go was available. */
  const goRunNs = (config, op = 'decode') => rows.find((r) => r.runtime === 'go-reference' && r.config === config && r.op === op)?.median_ns;
  for (const row of rows) {
    const go = row.op.startsWith('decode') ? goDecodeNs(row.config) : undefined;
    const referenceOp = row.op.startsWith('decode') ? 'decode' : row.op === 'encode' ? 'encode' : undefined;
    const goRun = referenceOp && row.runtime !== 'go-reference' ? goRunNs(row.config, referenceOp) : undefined;
    const x86 = seedNs(row.config, row.op);
    if (go !== undefined) Object.assign(row, { go_epyc_ns: go, vs_go_epyc: round(go / row.median_ns) });
    if (goRun !== undefined) Object.assign(row, { go_run_ns: goRun, vs_go_run: round(goRun / row.median_ns) });
    if (x86 !== undefined) Object.assign(row, { seed_x86_ns: x86, vs_seed_x86: round(x86 / row.median_ns) });
  }
  const find = (config, runtime, op = 'decode') => rows.find((r) => r.config === config && r.runtime === runtime && r.op === op);
  return { rows, cases, seed, caseByConfig, goDecodeNs, seedNs, goRunNs, find, configName };
}

export function round(x) {
  return Math.round(x * 1000) / 1000;
}
