// The targets `npm run bench` judges (PASS / MISS lines) and, for each miss
// of the SDK's decode targets, the measured part that bounds it.

import { isDecimation, mLine, us } from './report.mjs';
import { round } from './rounds.mjs';

/** The default configuration: the base of the ALP and `auto` encode targets. */
const DEFAULT_CONFIG = 'delta-none-gorilla-none';

/** Configurations by kind, as the targets group them. */
function groups({ cases, configName }) {
  return {
    numeric: cases.filter((c) => c.kind === 'numeric').map(configName),
    textConfigs: cases.filter((c) => c.kind === 'text').map(configName),
    decodeConfigs: cases.map(configName),
    simdConfigs: cases
      .filter((c) => c.kind === 'numeric' && (c.options.timestampEncoding === 'deltapacked' || ['raw', 'alp'].includes(c.options.valueEncoding)))
      .map(configName),
  };
}

/**
 * The targets, on a statistic of the rows: `median_ns` (the reported figures)
 * or `min_ns` (each row's least-disturbed sample: with other jobs on the
 * machine, the ratio of minima is the steadier in-run comparison). With
 * `min_ns` only comparisons between runtimes of this run are made.
 */
export function targetsFor(results, stat) {
  const { rows, find, goDecodeNs, seedNs, seed, caseByConfig } = results;
  const { numeric, textConfigs, decodeConfigs, simdConfigs } = groups(results);
  const decimateRowsFor = (runtime) => rows.filter((r) => r.runtime === runtime && isDecimation(r)).map((r) => `${r.config} ${r.op}`);
  const inRunOnly = stat === 'min_ns';
  const t = (r) => r?.[stat];
  const goRun = (c, op = 'decode') => rows.find((r) => r.runtime === 'go-reference' && r.config === c && r.op === op)?.[stat];
  const faster = (runtime, factor, op = 'decode', configs = numeric, what = 'every numeric config') =>
    [
      ['go run', goRun],
      ['go epyc', goDecodeNs],
    ]
      .filter(([label]) => !inRunOnly || label === 'go run')
      .map(([label, ref]) =>
        check(`${runtime} ${op} >= ${factor}x faster than the reference decode + Materialize (${label}), ${what}`, configs, (c) => {
          const ours = t(find(c, runtime, op));
          const go = ref(c);
          return ours !== undefined && go !== undefined && { value: go / ours, ok: go / ours >= factor };
        }),
      );
  const slower = (name, configs, runtime, base, factor, op = 'decode') =>
    check(name, configs, (c) => {
      const a = t(find(c, runtime, op));
      const b = t(find(c, base, op));
      return a !== undefined && b !== undefined && { value: a / b, ok: a <= factor * b };
    });
  const simdGain = (name, simdRuntime, scalarRuntime, op = 'decode') =>
    check(name, simdConfigs, (c) => {
      const simd = t(find(c, simdRuntime, op));
      const scalar = t(find(c, scalarRuntime, op));
      return simd !== undefined && scalar !== undefined && { value: scalar / simd, ok: scalar >= 1.2 * simd };
    });
  return [
    // The call a user makes first, into fresh typed arrays (decodeAll), and the
    // same into typed arrays kept from the previous call (decodeAllInto): what
    // the SDK does without the host's allocation of fresh output arrays.
    ...['wasm-node', 'wasm-chromium'].flatMap((runtime) => [...faster(runtime, 1.5), ...faster(runtime, 2, 'decode-into')]),
    // Text: TextBlob.decodeAll, every value of every metric (as dictionaries).
    ...['wasm-node', 'wasm-chromium'].flatMap((runtime) => faster(runtime, 1.5, 'decode', textConfigs, 'every text config')),
    slower('wasm-chromium within 1.2x of wasm-node (every config)', decodeConfigs, 'wasm-chromium', 'wasm-node', 1.2),
    slower('wasm-chromium decode-into within 1.2x of wasm-node decode-into (every numeric config)', numeric, 'wasm-chromium', 'wasm-node', 1.2, 'decode-into'),
    ...faster('rust-native', 3),
    simdGain('simd >= 1.2x faster than scalar, wasm-node (deltapacked timestamps, raw or alp values)', 'wasm-node', 'wasm-node-scalar'),
    simdGain('simd >= 1.2x faster than scalar, wasm-chromium (same configs)', 'wasm-chromium', 'wasm-chromium-scalar'),
    // decodeAll's fresh arrays cost the same in both builds and swing with the
    // engine's GC: into kept arrays, the ratio is that of the two builds' code.
    simdGain('simd >= 1.2x faster than scalar, wasm-node decode-into (same configs)', 'wasm-node', 'wasm-node-scalar', 'decode-into'),
    simdGain('simd >= 1.2x faster than scalar, wasm-chromium decode-into (same configs)', 'wasm-chromium', 'wasm-chromium-scalar', 'decode-into'),
    ...['wasm-node', 'wasm-chromium'].map((runtime) =>
      check(`${runtime}: mebo/worker pool >= 1.6x one thread on 8 bench blobs`, ['bench-8-blobs'], (config) => {
        const serial = t(find(config, runtime, 'decode-serial'));
        const pool = t(find(config, runtime, 'decode-pool'));
        return serial !== undefined && pool !== undefined && { value: serial / pool, ok: serial >= 1.6 * pool };
      }),
    ),
    ...['wasm-node', 'wasm-chromium'].map((runtime) =>
      check(`${runtime}: decode + decimate in wasm >= 3x faster than decode + the same decimation in JavaScript`, decimateRowsFor(runtime), (key) => {
        const [config, op] = key.split(' ');
        const wasm = t(find(config, runtime, op));
        const js = t(find(config, runtime, `${op}-js`));
        return wasm !== undefined && js !== undefined && { value: js / wasm, ok: js >= 3 * wasm };
      }),
    ),
    // Encode against the reference's encode of the same input, timed in this run.
    ...[
      ['rust-native', 2],
      ['wasm-node', 1],
      ['wasm-chromium', 1],
    ].map(([runtime, factor]) =>
      check(`${runtime} encode >= ${factor}x faster than the reference encode (go run), every config`, decodeConfigs, (c) => {
        const ours = t(find(c, runtime, 'encode'));
        const go = goRun(c, 'encode');
        return ours !== undefined && go !== undefined && { value: go / ours, ok: go / ours >= factor };
      }),
    ),
    ...['rust-native', 'wasm-node', 'wasm-chromium'].map((runtime) =>
      check(`${runtime} ALP encode within 2x of Gorilla's (delta timestamps, no codec)`, ['delta-none-alp-none'], (c) => {
        const alp = t(find(c, runtime, 'encode'));
        const gorilla = t(find(DEFAULT_CONFIG, runtime, 'encode'));
        return alp !== undefined && gorilla !== undefined && { value: alp / gorilla, ok: alp <= 2 * gorilla };
      }),
    ),
    ...['rust-native', 'wasm-node'].map((runtime) =>
      check(`${runtime} auto (balanced) encode within 3x of the default config's encode`, ['auto-balanced'], (c) => {
        const auto = t(find(c, runtime, 'encode-auto'));
        const plain = t(find(DEFAULT_CONFIG, runtime, 'encode'));
        return auto !== undefined && plain !== undefined && { value: auto / plain, ok: auto <= 3 * plain };
      }),
    ),
    ...(inRunOnly
      ? []
      : ['rust-native', 'wasm-node'].map((runtime) =>
          check(`${runtime} encode at least as fast as the documented encode (seed-x86 encode_250pts)`, Object.keys(seed.encode_250pts).filter((c) => caseByConfig.has(c)), (c) => {
            const ours = t(find(c, runtime, 'encode'));
            return ours !== undefined && { value: seedNs(c, 'encode') / ours, ok: ours <= seedNs(c, 'encode') };
          }),
        )),
  ];
}

/**
 * What bounds each miss of the SDK's decode targets against the reference
 * timed in this run: the budget (reference / factor) beside the parts of our
 * time measured on their own. `view` is open + decode in wasm + free with no
 * copy out (columnsView), `copy` the copy out alone (the breakdown's copy
 * into fresh typed arrays for decode, into kept ones for decode-into),
 * `native` the same decoder compiled for the CPU. A part above the budget,
 * or view + copy (both unavoidable for the call), bounds the miss whatever
 * the rest does.
 */
export function printBounds(results, breakdown) {
  const { rows, find } = results;
  const { numeric } = groups(results);
  const goRun = (c) => find(c, 'go-reference')?.median_ns;
  const lines = [];
  for (const runtime of ['wasm-node', 'wasm-chromium']) {
    for (const [op, factor] of [['decode', 1.5], ['decode-into', 2]]) {
      for (const config of numeric) {
        const ours = find(config, runtime, op)?.median_ns;
        const go = goRun(config);
        if (ours === undefined || go === undefined || ours * factor <= go) continue;
        const budget = go / factor;
        const view = find(config, runtime, 'decode-view')?.median_ns;
        const native = find(config, 'rust-native')?.median_ns;
        // The copy out each call must make: into fresh arrays (decode) or the caller's (decode-into).
        const parts = breakdown.find((b) => b.config === config && b.runtime === runtime);
        const copy = op === 'decode' ? parts?.copy_out_fresh_ns : parts?.copy_out_reused_ns;
        const bound =
          copy !== undefined && copy > budget
            ? 'the copy out alone'
            : native !== undefined && native > budget
              ? 'the decoder even natively'
              : view !== undefined && view > budget
                ? 'the decode in wasm alone'
                : view !== undefined && copy !== undefined && view + copy > budget
                  ? 'decode in wasm + copy out'
                  : `glue: ${us(ours - (view ?? 0) - (copy ?? 0))} µs unexplained`;
        lines.push(mLine([config, runtime.replace('wasm-', ''), op, us(go), us(budget), us(ours), us(view), us(copy), us(native), bound]).trimEnd());
      }
    }
  }
  printEncodeBounds(results, breakdown);
  if (lines.length === 0) return;
  console.log('');
  console.log('what bounds each miss of the SDK decode targets (median µs; budget = go run / factor: 1.5 for decode, 2 for decode-into;');
  console.log('view = open + decode in wasm + free, no copy out; copy = the copy out alone, into fresh arrays for decode and kept ones for decode-into;');
  console.log('bound = the first part, or sum of the two parts, above the budget)');
  console.log(mLine(['config', 'runtime', 'op', 'go run', 'budget', 'ours', 'view', 'copy', 'native', 'bound']).trimEnd());
  for (const l of lines) console.log(l);
}

/**
 * What bounds each miss of the SDK's encode target (at least the reference's
 * pace, numeric configurations): `copy` is the blob copied out of wasm memory
 * into a fresh array alone (the breakdown's, the same bytes the encode
 * returns), which every `encodeNumeric` pays last; `wasm` the rest of ours
 * (the crossing in and the encode in wasm); `native` the same encoder
 * compiled for the CPU.
 */
function printEncodeBounds(results, breakdown) {
  const { find } = results;
  const lines = [];
  for (const runtime of ['wasm-node', 'wasm-chromium']) {
    for (const config of groups(results).numeric) {
      const ours = find(config, runtime, 'encode')?.median_ns;
      const go = find(config, 'go-reference', 'encode')?.median_ns;
      const copy = breakdown.find((b) => b.config === config && b.runtime === runtime)?.blob_out_fresh_ns;
      if (ours === undefined || go === undefined || copy === undefined || ours <= go) continue;
      const native = find(config, 'rust-native', 'encode')?.median_ns;
      const bound =
        copy > go ? 'the copy out alone' : native !== undefined && native > go ? 'the encoder even natively' : ours - copy > go ? 'the encode in wasm alone' : 'encode in wasm + copy out';
      lines.push(mLine([config, runtime.replace('wasm-', ''), us(go), us(ours), us(ours - copy), us(copy), us(native), bound]).trimEnd());
    }
  }
  if (lines.length === 0) return;
  console.log('');
  console.log('what bounds each miss of the SDK encode target (median µs; budget = go run; copy = the blob out of wasm memory into a fresh array alone;');
  console.log('wasm = ours - copy: the crossing in and the encode in wasm; bound = the first part above the budget, or their sum)');
  console.log(mLine(['config', 'runtime', 'go run', 'ours', 'wasm', 'copy', 'native', 'bound']).trimEnd());
  for (const l of lines) console.log(l);
}

/** One target over `configs`: `measure(config)` returns `{ value, ok }` or undefined when not measured. */
function check(name, configs, measure) {
  const results = configs.map((config) => ({ config, ...measure(config) })).filter((r) => r.ok !== undefined);
  if (results.length === 0) return { name, status: 'SKIP', line: `SKIP  ${name}: not measured in this run` };
  const misses = results.filter((r) => !r.ok);
  const worst = results.reduce((a, b) => (name.includes('within') ? (b.value > a.value ? b : a) : b.value < a.value ? b : a));
  const status = misses.length === 0 ? 'PASS' : 'MISS';
  const detail =
    misses.length === 0
      ? `${results.length}/${results.length}, worst ${worst.config} ${worst.value.toFixed(2)}x`
      : `${results.length - misses.length}/${results.length}; missed: ${misses.map((m) => `${m.config} ${m.value.toFixed(2)}x`).join(', ')}`;
  return {
    name,
    status,
    results: results.map((r) => ({ config: r.config, value: round(r.value), ok: r.ok })),
    line: `${status}  ${name}: ${detail}`,
  };
}
