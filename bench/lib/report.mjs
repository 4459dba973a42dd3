// The printed report of `npm run bench`: every row, the decode matrix, the
// breakdown, decimation, the worker pool, sizes and the wasm binaries.

export const us = (ns) => (ns === undefined ? '-' : (ns / 1e3).toFixed(1));
export const ratio = (x) => (x === undefined || !Number.isFinite(x) ? '-' : `${x.toFixed(2)}x`);
const mWidths = [32, 7, 7, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 6, 7, 8, 9];
/** One line of the compact tables: the first cell left-aligned, the rest right-aligned. */
export const mLine = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(mWidths[i]) : String(c).padStart(mWidths[i] ?? 8))).join(' ');
/** A decimation row in wasm (not its JavaScript twin or the decode it is bounded by). */
export const isDecimation = (r) => r.op.startsWith('decimate-') && !r.op.endsWith('-js') && r.op !== 'decimate-decode-view';

/**
 * Print the report on stdout. `results` is `withReferences`' (rounds.mjs); rows
 * are sorted in place into the report's order.
 */
export function printReport(results, { machine, quick, rounds, breakdown, sizes, wasm }) {
  const { rows, cases, find, goRunNs, goDecodeNs, configName } = results;

  console.log('');
  console.log(`mebo bench (${quick ? 'QUICK run: few samples, not for reporting' : `full run, ${rounds} round${rounds > 1 ? 's' : ''}`}) — ${machine.cpu}, ${machine.cores} cores, node ${machine.node}, ${machine.rustc}${machine.chromium ? `, chromium ${machine.chromium}` : ''}${machine.go ? `, ${machine.go}` : ''}`);
  console.log(`load average at start ${machine.load_average_start.join(' ')}, at end ${machine.load_average_end.join(' ')}; nice ${machine.nice}`);
  console.log('ratios: reference time / our median (above 1: faster than the reference).');
  console.log(`  go run:   the reference (mebo Go v1.9.0) decode + Materialize, timed in this run on the same blobs (reference/): ${machine.reference}`);
  console.log('  go epyc:  the same, as recorded in testdata/reference/go-v1.9-epyc.json (another run; absolute times drift with load)');
  console.log('  seed x86: documented i7-9700K figures (decode + iterate total; encode)');
  console.log('');
  const header = ['config', 'runtime', 'op', 'points', 'bytes', 'median µs', 'min µs', 'Mpts/s', 'vs go run', 'vs go epyc', 'vs seed x86'];
  const widths = [36, 20, 6, 7, 8, 10, 10, 8, 10, 10, 11];
  const line = (cells) => cells.map((c, i) => (i < 3 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' ');
  console.log(line(header));
  const runtimeOrder = ['rust-native', 'go-reference', 'wasm-node', 'wasm-node-scalar', 'wasm-node-core', 'wasm-chromium', 'wasm-chromium-scalar', 'wasm-chromium-core', 'json', 'arrow'];
  const configOrder = [...cases.map(configName), 'json', 'arrow'];
  rows.sort(
    (a, b) =>
      configOrder.indexOf(a.config) - configOrder.indexOf(b.config) ||
      a.op.localeCompare(b.op) ||
      runtimeOrder.indexOf(a.runtime) - runtimeOrder.indexOf(b.runtime),
  );
  for (const r of rows) {
    console.log(
      line([r.config, r.runtime, r.op, r.points, r.bytes, us(r.median_ns), us(r.min_ns), ((r.points / r.median_ns) * 1e3).toFixed(1), ratio(r.vs_go_run), ratio(r.vs_go_epyc), ratio(r.vs_seed_x86)]),
    );
  }

  // Compact decode matrix: one line per configuration.
  console.log('');
  console.log('decode, median µs per blob (numeric: 50,000 points; text: 10,005 points)');
  const mHeader = ['config', 'native', 'go run', 'go epyc', 'node', 'node-in', 'node-vw', 'node-sc', 'chrom', 'chrom-in', 'chrom-vw', 'chrom-sc', 'node/go', 'in/go', 'nat/go', 'chr/node', 'simd gain'];
  console.log(mLine(mHeader));
  /** The reference figure a ratio is taken against: this run's when Go ran, else the recorded one. */
  const goRef = (config) => goRunNs(config) ?? goDecodeNs(config);
  for (const config of cases.map(configName)) {
    const [nat, node, nodeSc, chr, chrSc] = ['rust-native', 'wasm-node', 'wasm-node-scalar', 'wasm-chromium', 'wasm-chromium-scalar'].map(
      (rt) => find(config, rt)?.median_ns,
    );
    const nodeInto = find(config, 'wasm-node', 'decode-into')?.median_ns;
    const [nodeView, chrInto, chrView] = [['wasm-node', 'decode-view'], ['wasm-chromium', 'decode-into'], ['wasm-chromium', 'decode-view']].map(([rt, op]) => find(config, rt, op)?.median_ns);
    const go = goRef(config);
    console.log(
      mLine([config, us(nat), us(goRunNs(config)), us(goDecodeNs(config)), us(node), us(nodeInto), us(nodeView), us(nodeSc), us(chr), us(chrInto), us(chrView), us(chrSc), ratio(go / node), ratio(go / nodeInto), ratio(go / nat), ratio(chr / node), ratio(nodeSc / node)]),
    );
  }
  const wrong = rows.filter((r) => r.runtime === 'go-reference' && r.correct === false);
  if (rows.some((r) => r.runtime === 'go-reference')) {
    const procs = [...new Set(rows.filter((r) => r.runtime === 'go-reference').map((r) => r.gomaxprocs))].join(', ');
    console.log(`(go run: GOMAXPROCS=${procs}; ${wrong.length ? `its decode differs from the input, so it timed a wrong result, on ${wrong.map((r) => r.config).join(', ')}: ${wrong[0].mismatch}` : 'every decode matched the input'})`);
  }
  for (const base of ['json', 'arrow']) {
    const r = find(base, base);
    if (r) console.log(`${`${base}: ${r.bytes} bytes`.padEnd(32)} ${us(r.median_ns)} µs (JSON.parse / apache-arrow tableFromIPC into typed arrays, same 50,000 points)`);
  }
  console.log(`(node, chrom: decodeAll into fresh arrays; -in: decodeAllInto arrays kept from the previous call; -vw: columnsView, views of the module's memory; node/go, in/go, nat/go: against ${rows.some((r) => r.runtime === 'go-reference') ? 'go run' : 'go epyc'}; simd gain: node scalar / node simd)`);

  printLightCore(results);
  printEncode(results);

  if (breakdown.length) {
    console.log('');
    console.log('decode breakdown (round 1, simd build), median µs. open: NumericBlob.from (copy into wasm, parse, decompress, own the');
    console.log('payloads) + free. decodeAll: decode in wasm + new typed arrays copied out. For scale, the two 8-byte-per-point output');
    console.log('columns copied out of a wasm memory view into fresh typed arrays (what the glue does) and into reused ones;');
    console.log('copy in: the blob bytes copied into wasm memory (the first part of open).');
    console.log(mLine(['config', 'runtime', 'decode', 'open', 'copy in', 'decAll', 'fresh', 'reused', 'native']).trimEnd());
    for (const b of breakdown) {
      console.log(
        mLine([b.config, b.runtime.replace('wasm-', ''), us(find(b.config, b.runtime)?.median_ns), us(b.open_free_ns), us(b.copy_in_ns), us(b.decode_all_ns), us(b.copy_out_fresh_ns), us(b.copy_out_reused_ns), us(find(b.config, 'rust-native')?.median_ns)]).trimEnd(),
      );
    }
  }

  const decimateRows = rows.filter(isDecimation);
  if (decimateRows.length) {
    console.log('');
    console.log('decimation for a chart: every metric thinned to 1,000 points, median µs (open + decimate in wasm, vs timestampsMs + values');
    console.log('from wasm and the same algorithm in JavaScript); ratio: JavaScript / wasm (above 1: decimate is faster)');
    console.log('decode: open + columnsView + free, the decode both sides pay; bound: js / decode, the ratio a free decimation would reach');
    console.log(mLine(['config', 'runtime', 'method', 'wasm', 'js', 'js/wasm', 'decode', 'bound']).trimEnd());
    for (const r of decimateRows) {
      const js = find(r.config, r.runtime, `${r.op}-js`);
      const decode = find(r.config, r.runtime, 'decimate-decode-view');
      console.log(
        mLine([r.config, r.runtime.replace('wasm-', ''), r.op.replace('decimate-', ''), us(r.median_ns), us(js?.median_ns), ratio(js && js.median_ns / r.median_ns), us(decode?.median_ns), ratio(js && decode && js.median_ns / decode.median_ns)]).trimEnd(),
      );
    }
  }

  const poolRowsOf = rows.filter((r) => r.op === 'decode-pool');
  if (poolRowsOf.length) {
    console.log('');
    console.log('mebo/worker: 8 bench blobs decoded one after another on one thread vs at once by the pool (a worker per core), and one');
    console.log('3-point blob (the per-call overhead: post, decode in a worker, transfer back), median µs');
    console.log(mLine(['config', 'runtime', 'workers', 'serial', 'pool', 'speedup']).trimEnd());
    for (const r of poolRowsOf) {
      const serial = find(r.config, r.runtime, 'decode-serial');
      console.log(mLine([r.config, r.runtime.replace('wasm-', ''), r.workers ?? '-', us(serial?.median_ns), us(r.median_ns), ratio(serial && serial.median_ns / r.median_ns)]).trimEnd());
    }
  }

  console.log('');
  console.log(`sizes (same 200 x 250 points): JSON ${sizes.json.bytes} bytes (${sizes.json.gzip} gzipped), Arrow IPC ${sizes.arrow.bytes} (${sizes.arrow.gzip} gzipped)`);
  console.log(mLine(['config', 'bytes', 'gzip', 'seed-x86', 'vs JSON', 'vs Arrow']).trimEnd());
  for (const s of sizes.blobs) {
    const numeric = !s.config.startsWith('text-');
    console.log(
      mLine([s.config, s.bytes, s.gzip, s.seed_x86 ?? '-', numeric ? `${((s.bytes / sizes.json.bytes) * 100).toFixed(1)}%` : '', numeric ? `${((s.bytes / sizes.arrow.bytes) * 100).toFixed(1)}%` : '']).trimEnd(),
    );
  }

  console.log('');
  console.log('wasm binaries (wasm-opt -O3 without its inliner), bytes raw / gzip -9:');
  for (const w of wasm) console.log(`  ${w.name.padEnd(26)} ${String(w.bytes).padStart(8)} / ${String(w.gzip).padStart(7)}${w.note ? `   ${w.note}` : ''}`);
}

/**
 * The encode matrix: each configuration written from its input by each
 * runtime beside the reference's encode timed in this run, ratios as in the
 * decode matrix; `same`: which runtimes wrote the recorded (reference's)
 * bytes. Then `auto` under each prefer, against the default configuration's
 * encode in the same runtime, with what it chose.
 */
/**
 * What the light core (mebo/decode in a page) costs per configuration: its
 * decode against the full simd build's in the same run, in Node and in
 * Chromium. The core has no fast kernels for Gorilla, Chimp and ALP (built
 * for size) and reaches zstd through its part (a copy in and out).
 */
function printLightCore({ rows, cases, find, configName }) {
  if (!rows.some((r) => r.runtime === 'wasm-node-core' || r.runtime === 'wasm-chromium-core')) return;
  console.log('');
  console.log("the light core (mebo/decode's first module, with its zstd part), decode median µs per blob, against the simd build");
  console.log(mLine(['config', 'node', 'core', 'ratio', 'chrom', 'core', 'ratio']).trimEnd());
  for (const config of cases.map(configName)) {
    const [node, nodeCore, chrom, chromCore] = ['wasm-node', 'wasm-node-core', 'wasm-chromium', 'wasm-chromium-core'].map((rt) => find(config, rt)?.median_ns);
    console.log(mLine([config, us(node), us(nodeCore), ratio(nodeCore / node), us(chrom), us(chromCore), ratio(chromCore / chrom)]).trimEnd());
  }
  console.log('(ratio: core / simd build; above 1x the core is slower)');
}

function printEncode({ rows, cases, find, goRunNs, configName }) {
  if (!rows.some((r) => r.op === 'encode')) return;
  const runtimes = ['rust-native', 'wasm-node', 'wasm-chromium'];
  console.log('');
  console.log('encode, median µs per blob (each configuration written from its input; go run: the reference\'s encode, timed in this run)');
  console.log(mLine(['config', 'native', 'go run', 'node', 'chrom', 'nat/go', 'node/go', 'chr/go', 'same']).trimEnd());
  for (const config of cases.map(configName)) {
    const [nat, node, chr] = runtimes.map((rt) => find(config, rt, 'encode'));
    const go = goRunNs(config, 'encode');
    // Which of our runtimes wrote the reference's bytes (n: native, w: wasm in Node, c: Chromium).
    const same = [nat, node, chr].map((r, i) => (r?.identical ? 'nwc'[i] : r ? '-' : ' ')).join('');
    console.log(mLine([config, us(nat?.median_ns), us(go), us(node?.median_ns), us(chr?.median_ns), ratio(go / nat?.median_ns), ratio(go / node?.median_ns), ratio(go / chr?.median_ns), same]).trimEnd());
  }
  const autoRows = rows.filter((r) => r.op === 'encode-auto' && runtimes.includes(r.runtime));
  if (autoRows.length === 0) return;
  const base = 'delta-none-gorilla-none';
  console.log(`(same: n/w/c where native / Node / Chromium wrote the recorded bytes, - where not: the s2 and lz4 libraries may choose other matches)`);
  console.log('');
  console.log(`auto on the numeric bench input, median µs; × default: over the same runtime's encode of ${base}; chosen: the configuration written`);
  console.log(mLine(['prefer', 'native', '× default', 'node', '× default', 'chrom', '× default', 'bytes', 'chosen']).trimEnd());
  for (const config of [...new Set(autoRows.map((r) => r.config))]) {
    const cells = runtimes.flatMap((rt) => {
      const r = find(config, rt, 'encode-auto');
      return [us(r?.median_ns), ratio(r && r.median_ns / find(base, rt, 'encode')?.median_ns)];
    });
    const any = autoRows.find((r) => r.config === config);
    console.log(mLine([config, ...cells, any.bytes, any.chosen]).trimEnd());
  }
}

/**
 * The column kernels alone beside the decode totals, ns per point: natively
 * and in Node (wasm32-wasip1 builds of the same decoders, simd and scalar),
 * so the reader sees which kernel bounds which configuration. Beside them the
 * blob's open alone and open + decode_all in the same build, and the bound
 * they set: the reference's time over open + the two kernels natively, over
 * the crate's whole decode in wasm (no bindings, no copies) in Node; the same
 * for Chromium when its kernels were run (variant `chromium`).
 */
export function printKernels(results, kernels, breakdown = []) {
  const { cases, find, goRunNs, goDecodeNs, configName } = results;
  const by = (variant) => kernels.find((k) => k.variant === variant);
  const [native, simd, scalar] = ['native', 'simd', 'scalar'].map(by);
  const points = native?.points;
  const ns = (x) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(2));
  const perPoint = (row) => row && row.median_ns / row.points;
  const ratioOf = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : '-');
  // Per point, for one configuration: the reference (go run); in wasm, the decode the bindings run
  // (raw little-endian columns are left to the copy out); the breakdown's copy in + copy out in `runtime`.
  const goOf = (config) => (goRunNs(config) ?? goDecodeNs(config)) / points;
  const wholeOf = (v, config) => (v?.blobs?.[config]?.unstored_ns ?? v?.blobs?.[config]?.decode_ns) / points;
  const partsOf = (config, runtime) => breakdown.find((b) => b.config === config && b.runtime === runtime);
  const copiesOf = (parts) => parts && (parts.copy_in_ns + parts.copy_out_reused_ns) / points;
  console.log('');
  console.log(`column kernels alone, median ns per point over the bench input (${points ?? '-'} points; median of ${native?.sittings ?? 1} sittings): timestamps (ts) and values (val),`);
  console.log('natively and in Node (crates/mebo-bench for wasm32-wasip1 under node:wasi). nat tot: open + decode_all as timed in the rows above;');
  console.log('open: the blob opened alone; bound: the reference (go run) over open + ts + val, the best ratio these kernels allow. node-in:');
  console.log('NumericBlob.from + decodeAllInto + free; wasm: open + decode of the crate in the wasip1 simd build as the bindings run it');
  console.log('(decode_unstored_into: a raw little-endian column is left as stored; no bindings, no copies), its bound the reference');
  console.log('over it; in bound: the reference over that decode + the copy of the blob into wasm');
  console.log('memory + the copy of the columns out (breakdown), what decodeAllInto must do. zstd, which the wasip1 build leaves out:');
  console.log('wasm -; in bound* over the SDK open (breakdown: copy in, decompress, parse) + the two kernels + the copy out.');
  console.log(mLine(['config', 'go run', 'nat tot', 'open', 'ts', 'val', 'bound', 'node-in', 'wasm', 'open', 'ts', 'val', 'bound', 'in bound', 'scal ts', 'scal val']).trimEnd());
  for (const c of cases.filter((c) => c.kind === 'numeric')) {
    const config = configName(c);
    const [ts, , value] = config.split('-');
    const go = goOf(config);
    const k = (v, side, enc) => v?.[side]?.[enc];
    const open = (v) => v?.blobs?.[config]?.open_ns / points;
    const whole = (v) => wholeOf(v, config);
    const nativeBound = go / (open(native) + k(native, 'timestamps', ts) + k(native, 'values', value));
    const parts = partsOf(config, 'wasm-node');
    const copies = copiesOf(parts);
    const kernelsV8 = k(simd, 'timestamps', ts) + k(simd, 'values', value);
    const inBound = whole(simd) + copies || (parts && (parts.open_free_ns + parts.copy_out_reused_ns) / points + kernelsV8);
    const inBoundCell = Number.isFinite(whole(simd)) ? ratioOf(go / inBound) : `${ratioOf(go / inBound)}*`;
    console.log(
      mLine([
        config,
        ns(go),
        ns(perPoint(find(config, 'rust-native'))),
        ns(open(native)),
        ns(k(native, 'timestamps', ts)),
        ns(k(native, 'values', value)),
        ratioOf(nativeBound),
        ns(perPoint(find(config, 'wasm-node', 'decode-into'))),
        ns(whole(simd)),
        ns(open(simd)),
        ns(k(simd, 'timestamps', ts)),
        ns(k(simd, 'values', value)),
        ratioOf(go / whole(simd)),
        inBoundCell,
        ns(k(scalar, 'timestamps', ts)),
        ns(k(scalar, 'values', value)),
      ]).trimEnd(),
    );
  }
  const chromium = by('chromium');
  if (!chromium) return;
  console.log('');
  console.log(`the same in Chromium ${chromium.chromium ?? ''}: the wasip1 simd build run in a page (bench/kernels-chromium.mjs). chr-in: the Chromium`);
  console.log('row of decodeAllInto; wasm: open + decode there as the bindings run it, and its bound; in bound: the reference over that decode +');
  console.log("the Chromium breakdown's copy in and copy out; × node: the Chromium decode over Node's (the same build, two engines). zstd: -.");
  console.log(mLine(['config', 'go run', 'chr-in', 'wasm', 'open', 'ts', 'val', 'bound', 'in bound', '× node']).trimEnd());
  for (const c of cases.filter((c) => c.kind === 'numeric')) {
    const config = configName(c);
    const [ts, , value] = config.split('-');
    const go = goOf(config);
    const whole = (v) => wholeOf(v, config);
    const copies = copiesOf(partsOf(config, 'wasm-chromium'));
    console.log(
      mLine([
        config,
        ns(go),
        ns(perPoint(find(config, 'wasm-chromium', 'decode-into'))),
        ns(whole(chromium)),
        ns(chromium.blobs?.[config]?.open_ns / points),
        ns(chromium.timestamps?.[ts]),
        ns(chromium.values?.[value]),
        ratioOf(go / whole(chromium)),
        ratioOf(go / (whole(chromium) + copies)),
        ns(whole(chromium) / whole(simd)),
      ]).trimEnd(),
    );
  }
}
