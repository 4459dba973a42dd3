// The formats a dashboard author would ship instead of mebo, over the same
// points, each with an encoder (input → bytes) and a decoder (bytes →
// per-metric typed arrays: { name, timestamps: BigInt64Array, values:
// Float64Array } in input order), and a bit-for-bit check of a decode.
//
//   json          columnar JSON ({ metrics: [{ name, timestamps, values }] }), JSON.parse
//   arrow         Arrow IPC stream, one row per metric: name Utf8, timestamps List<Int64>, values List<Float64>
//   arrow-zstd    the same with zstd record-batch bodies (compressed by zstd-codec, read with fzstd,
//                 the decompressor a page would ship)
//   parquet-wasm  Parquet of the same table, zstd, written and read by parquet-wasm (Rust in wasm)
//   hyparquet     the same Parquet file read by hyparquet + hyparquet-compressors (JavaScript)
//
// mebo's own entries (a configuration's blob, NumericBlob.from + decodeAll,
// views per metric) are built by `meboFormat`. The libraries are passed in,
// so Node and a page can load them as each does.

/**
 * @typedef {{ name: string, id?: bigint, timestamps: BigInt64Array, values: Float64Array }} Series
 * @typedef {{ startTime: bigint, metrics: Series[] }} Input
 * @typedef {{ name: string, encode: (input: Input) => Uint8Array | Promise<Uint8Array>, decode: (bytes: Uint8Array) => Series[] | Promise<Series[]>, note?: string }} Format
 */

/** Decoded series equal the input bit for bit (names, timestamps, value bits); throws naming the first difference. */
export function checkSeries(what, input, decoded) {
  if (decoded.length !== input.metrics.length) throw new Error(`${what}: ${decoded.length} metrics, input has ${input.metrics.length}`);
  input.metrics.forEach((m, i) => {
    const d = decoded[i];
    if (d.name !== m.name) throw new Error(`${what}: metric ${i} is ${d.name}, expected ${m.name}`);
    if (d.timestamps.length !== m.timestamps.length || d.values.length !== m.values.length) throw new Error(`${what}: ${m.name} has ${d.values.length} points, expected ${m.values.length}`);
    const got = new BigUint64Array(d.values.buffer, d.values.byteOffset, d.values.length);
    const want = new BigUint64Array(m.values.buffer, m.values.byteOffset, m.values.length);
    for (let j = 0; j < m.values.length; j++) {
      if (d.timestamps[j] !== m.timestamps[j]) throw new Error(`${what}: ${m.name} timestamp ${j}: ${d.timestamps[j]} vs ${m.timestamps[j]}`);
      if (got[j] !== want[j]) throw new Error(`${what}: ${m.name} value ${j}: bits ${got[j].toString(16)} vs ${want[j].toString(16)}`);
    }
  });
}

/**
 * mebo: encodeNumeric with `options` (a config string, 'auto', or an options object); decode to
 * per-metric views. A series with an `id` (a blob's metric without a stored name) is started by it.
 */
export function meboFormat(mebo, name, options) {
  const started = (metrics) => metrics.map((m) => (m.id === undefined ? m : { id: m.id, timestamps: m.timestamps, values: m.values }));
  return {
    name,
    encode: (input) => mebo.encodeNumeric(started(input.metrics), typeof options === 'string' ? { config: options, layout: 'v2', startTime: input.startTime } : { layout: 'v2', ...options, startTime: input.startTime }),
    decode: (bytes) => {
      const blob = mebo.NumericBlob.from(bytes);
      try {
        const names = blob.names;
        const { ids, offsets, timestamps, values } = blob.decodeAll();
        // v2 orders metrics by id; hand them back in the input's order, by name when stored, else by id.
        const out = Array.from(ids, (id, i) => ({
          id,
          name: names?.[i],
          timestamps: timestamps.subarray(offsets[i], offsets[i + 1]),
          values: values.subarray(offsets[i], offsets[i + 1]),
        }));
        return out;
      } finally {
        blob.free();
      }
    },
  };
}

/** mebo's decode hands metrics back by id: put them in the input's order, named (untimed, for the check). */
export function inInputOrder(mebo, input, decoded) {
  const byId = new Map(decoded.map((d) => [d.id, d]));
  return input.metrics.map((m) => ({ ...byId.get(m.id ?? mebo.metricId(m.name)), name: m.name }));
}

/** Columnar JSON, as a typical HTTP API sends it (timestamps as numbers: exact below 2^53 µs; NaN as null). */
export function jsonFormat() {
  return {
    name: 'json',
    encode: (input) =>
      new TextEncoder().encode(
        JSON.stringify({ metrics: input.metrics.map((m) => ({ name: m.name, timestamps: Array.from(m.timestamps, Number), values: Array.from(m.values) })) }),
      ),
    decode: (bytes) =>
      JSON.parse(new TextDecoder().decode(bytes)).metrics.map((m) => ({
        name: m.name,
        timestamps: BigInt64Array.from(m.timestamps, BigInt),
        values: Float64Array.from(m.values, (v) => (v === null ? NaN : v)),
      })),
  };
}

/** The input as one Arrow table: a row per metric, List<Int64> and List<Float64>. */
export function arrowTable(arrow, input) {
  const n = input.metrics.length;
  const total = input.metrics.reduce((sum, m) => sum + m.values.length, 0);
  const offsets = new Int32Array(n + 1);
  const timestamps = new BigInt64Array(total);
  const values = new Float64Array(total);
  let at = 0;
  input.metrics.forEach((m, i) => {
    timestamps.set(m.timestamps, at);
    values.set(m.values, at);
    at += m.values.length;
    offsets[i + 1] = at;
  });
  const list = (type, data) =>
    arrow.makeData({
      type: new arrow.List(new arrow.Field('item', type, false)),
      length: n,
      nullCount: 0,
      valueOffsets: offsets,
      child: arrow.makeData({ type, length: total, nullCount: 0, data }),
    });
  return new arrow.Table({
    name: arrow.vectorFromArray(input.metrics.map((m) => m.name), new arrow.Utf8()),
    timestamps: arrow.makeVector(list(new arrow.Int64(), timestamps)),
    values: arrow.makeVector(list(new arrow.Float64(), values)),
  });
}

/** Per-metric views of an Arrow table of arrowTable's shape (every record batch). */
function seriesOfArrow(table) {
  const out = [];
  const names = table.getChild('name');
  let row = 0;
  for (const batch of table.batches) {
    const ts = batch.getChild('timestamps').data[0];
    const vs = batch.getChild('values').data[0];
    const tv = ts.children[0].values;
    const vv = vs.children[0].values;
    for (let i = 0; i < batch.numRows; i++, row++) {
      const [a, b] = [ts.valueOffsets[ts.offset + i], ts.valueOffsets[ts.offset + i + 1]];
      const [c, d] = [vs.valueOffsets[vs.offset + i], vs.valueOffsets[vs.offset + i + 1]];
      out.push({ name: names.get(row), timestamps: tv.subarray(a, b), values: vv.subarray(c, d) });
    }
  }
  return out;
}

/**
 * zstd for Arrow's record-batch bodies: zstd-codec (zstd's C in emscripten) compresses at level 3,
 * fzstd (4 kB gzipped minified, what a page would ship to read them) decompresses. Resolves once
 * zstd-codec's module has compiled. `ZstdCodec` and `fzstd` are the packages' exports.
 */
export function zstdCodec(ZstdCodec, fzstd) {
  return new Promise((resolve) => {
    ZstdCodec.run((codec) => {
      const simple = new codec.Simple();
      resolve({ compress: (data) => simple.compress(data, 3), decompress: (data) => fzstd.decompress(data) });
    });
  });
}

/**
 * Arrow IPC stream; with `zstd` ({ compress, decompress } of whole frames) its record-batch
 * bodies are zstd, through apache-arrow's codec registry.
 */
export function arrowFormat(arrow, zstd) {
  if (zstd) {
    // Arrow views a decompressed buffer as Int64 / Float64 in place: it must start 8-aligned.
    const aligned = (bytes) => (bytes.byteOffset % 8 === 0 ? bytes : bytes.slice());
    arrow.compressionRegistry.set(arrow.CompressionType.ZSTD, { encode: (data) => zstd.compress(data), decode: (data) => aligned(zstd.decompress(data)) });
  }
  return {
    name: zstd ? 'arrow-zstd' : 'arrow',
    encode: (input) => {
      const table = arrowTable(arrow, input);
      if (!zstd) return arrow.tableToIPC(table, 'stream');
      const writer = new arrow.RecordBatchStreamWriter({ compressionType: arrow.CompressionType.ZSTD });
      writer.write(table);
      writer.finish();
      return writer.toUint8Array(true);
    },
    decode: (bytes) => seriesOfArrow(arrow.tableFromIPC(bytes)),
  };
}

/** Parquet (zstd) of arrowTable's table, written by parquet-wasm; read by parquet-wasm into Arrow. */
export function parquetWasmFormat(arrow, parquet) {
  return {
    name: 'parquet-wasm',
    encode: (input) => {
      const ipc = arrow.tableToIPC(arrowTable(arrow, input), 'stream');
      const props = new parquet.WriterPropertiesBuilder().setCompression(parquet.Compression.ZSTD).build();
      return parquet.writeParquet(parquet.Table.fromIPCStream(ipc), props);
    },
    decode: (bytes) => seriesOfArrow(arrow.tableFromIPC(parquet.readParquet(bytes).intoIPCStream())),
  };
}

/** The same Parquet file read by hyparquet with hyparquet-compressors' zstd (rows of JS arrays, then typed arrays). */
export function hyparquetFormat(hyparquet, compressors, parquetWasm) {
  return {
    name: 'hyparquet',
    note: 'reads the parquet-wasm file',
    encode: parquetWasm.encode,
    decode: async (bytes) => {
      const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      let rows;
      await hyparquet.parquetRead({ file, compressors, columns: ['name', 'timestamps', 'values'], onComplete: (r) => (rows = r) });
      return rows.map(([name, timestamps, values]) => ({ name, timestamps: BigInt64Array.from(timestamps), values: Float64Array.from(values) }));
    },
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Time `ops` ({ key, run, check? }) in turn, `rounds` times over, so load drifts over all alike.
 * A sample is as many calls of `run` as fill about `sampleMs` (counted once, up front); its time
 * is per call, in µs. `check` sees every result of a sample after its stopwatch stops.
 * Returns { [key]: { median_us, min_us, calls } }.
 */
export async function roundRobin({ rounds, sampleMs }, ops) {
  const state = [];
  for (const op of ops) {
    const t0 = performance.now();
    await op.run();
    const once = Math.max(performance.now() - t0, 0.001);
    state.push({ op, calls: Math.max(1, Math.min(1000, Math.round(sampleMs / once))), samples: [] });
  }
  for (let r = 0; r < rounds; r++) {
    for (const s of state) {
      const results = new Array(s.calls);
      const t0 = performance.now();
      for (let i = 0; i < s.calls; i++) results[i] = await s.op.run();
      s.samples.push(((performance.now() - t0) * 1000) / s.calls);
      if (s.op.check) results.forEach(s.op.check);
    }
  }
  return Object.fromEntries(state.map((s) => [s.op.key, { median_us: median(s.samples), min_us: Math.min(...s.samples), calls: s.calls }]));
}
