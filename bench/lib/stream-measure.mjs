// The stream-of-blobs measurement, the same in Node and in the Chromium page
// (bench/runners/stream-page.mjs): the bench blobs framed into one stream, fed to
// decodeStream in chunks of a given size, against decoding the same blobs
// from memory one by one, interleaved in one run. Each blob is opened,
// decodeAll'd and freed either way.

/** Chunk sizes the stream is fed in. */
export const CHUNK_SIZES = [1 << 10, 64 << 10, 1 << 20];

/** The blobs as one stream of blobs (docs/FORMAT.md), in memory: the SDK's `frameBlobs` read to its end. */
export async function framed(mebo, blobs) {
  return new Uint8Array(await new Response(mebo.frameBlobs(blobs)).arrayBuffer());
}

/** A pull-based ReadableStream of `bytes` in chunks of `size` (views, no copies), as a network delivers them. */
export function chunked(bytes, size) {
  let at = 0;
  return new ReadableStream(
    {
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(at, at + size));
        at += size;
      },
    },
    { highWaterMark: 0 },
  );
}

function decodeOne(blob) {
  const columns = blob.decodeAll();
  blob.free();
  return columns.timestamps.length;
}

/** Every blob from memory, one by one. Returns the points decoded (a check that both sides did the same work). */
function fromMemory(mebo, blobs) {
  let points = 0;
  for (const bytes of blobs) points += decodeOne(mebo.blobKind(bytes) === 'text' ? mebo.TextBlob.from(bytes) : mebo.NumericBlob.from(bytes));
  return points;
}

async function fromStream(mebo, stream) {
  let points = 0;
  for await (const blob of mebo.decodeStream(stream)) points += decodeOne(blob);
  return points;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** This process's CPU time in ms (Node), undefined where there is none (a page): under load it is steadier than the wall clock. */
const cpuNow = () => (typeof process === 'object' && typeof process.cpuUsage === 'function' ? (({ user, system }) => (user + system) / 1e3)(process.cpuUsage()) : undefined);

/** Wall and CPU ms of one call. */
async function timed(fn) {
  const [w0, c0] = [performance.now(), cpuNow()];
  const result = await fn();
  const c1 = cpuNow();
  return { wall: performance.now() - w0, cpu: c0 === undefined ? undefined : c1 - c0, result };
}

/** Read every chunk and drop it: what the source costs alone. */
async function sourceAlone(stream) {
  const reader = stream.getReader();
  for (;;) if ((await reader.read()).done) return;
}

/**
 * Median ms of decoding the blobs from memory and through decodeStream at
 * each chunk size, `reps` rounds interleaved (memory, then each chunk size,
 * in turn), after one warm-up round; also the stream's chunks read and
 * dropped (the source alone: the platform's own cost per chunk). Returns
 * rows { chunk, memoryMs, streamMs, sourceMs, ratio, mbPerS } on the wall
 * clock, and the same with `Cpu` on process CPU time where there is one.
 */
export async function measureThroughput(mebo, blobs, { reps = 15 } = {}) {
  const stream = await framed(mebo, blobs);
  const samples = { memory: [], ...Object.fromEntries(CHUNK_SIZES.flatMap((c) => [[c, []], [`source ${c}`, []]])) };
  const want = fromMemory(mebo, blobs);
  for (let r = -1; r < reps; r++) {
    const memory = await timed(() => fromMemory(mebo, blobs));
    if (r >= 0) samples.memory.push(memory);
    for (const size of CHUNK_SIZES) {
      const run = await timed(() => fromStream(mebo, chunked(stream, size)));
      if (run.result !== want) throw new Error(`decodeStream in chunks of ${size} decoded ${run.result} points, from memory ${want}`);
      const source = await timed(() => sourceAlone(chunked(stream, size)));
      if (r >= 0) {
        samples[size].push(run);
        samples[`source ${size}`].push(source);
      }
    }
  }
  const wall = (key) => median(samples[key].map((s) => s.wall));
  const cpu = (key) => (samples[key][0].cpu === undefined ? undefined : median(samples[key].map((s) => s.cpu)));
  const memoryMs = wall('memory');
  const memoryCpuMs = cpu('memory');
  return CHUNK_SIZES.map((chunk) => {
    const streamMs = wall(chunk);
    const streamCpuMs = cpu(chunk);
    return {
      chunk,
      memoryMs,
      streamMs,
      sourceMs: wall(`source ${chunk}`),
      ratio: streamMs / memoryMs,
      mbPerS: stream.length / 1e6 / (streamMs / 1e3),
      ...(memoryCpuMs === undefined ? {} : { memoryCpuMs, streamCpuMs, sourceCpuMs: cpu(`source ${chunk}`), ratioCpu: streamCpuMs / memoryCpuMs }),
    };
  });
}
