// The page of bench/kernels-chromium.mjs: runs the wasm32-wasip1 build of
// crates/mebo-bench (`--kernels-json`) in Chromium, through the smallest WASI
// preview1 the binary imports: its arguments, a clock, stdout, and the bench's
// test data read from an in-memory tree under one preopened directory.

const ERRNO = { success: 0, badf: 8, noent: 44 };
const FILETYPE = { characterDevice: 2, directory: 3, regularFile: 4 };

class Exit extends Error {
  constructor(code) {
    super(`exit ${code}`);
    this.code = code;
  }
}

/** `path` with `.` and `..` resolved (the binary names files as crates/<crate>/../../testdata/...). */
function normalize(path) {
  const parts = [];
  for (const part of path.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '' && part !== '.') parts.push(part);
  }
  return parts.join('/');
}

/** A WASI preview1 import object over `files` (relative path → bytes) preopened as `root`; `stdout` collects fd 1. */
function wasiImports({ args, root, files, memory, stdout }) {
  const open = new Map(); // fd → { bytes, at }
  let nextFd = 4;
  const view = () => new DataView(memory().buffer);
  const bytes = () => new Uint8Array(memory().buffer);
  const encoder = new TextEncoder();
  const encodedArgs = args.map((a) => encoder.encode(`${a}\0`));
  const rootName = encoder.encode(root);
  return {
    args_sizes_get(argc, size) {
      view().setUint32(argc, encodedArgs.length, true);
      view().setUint32(size, encodedArgs.reduce((n, a) => n + a.length, 0), true);
      return ERRNO.success;
    },
    args_get(argv, buf) {
      for (const [i, a] of encodedArgs.entries()) {
        view().setUint32(argv + 4 * i, buf, true);
        bytes().set(a, buf);
        buf += a.length;
      }
      return ERRNO.success;
    },
    environ_sizes_get(count, size) {
      view().setUint32(count, 0, true);
      view().setUint32(size, 0, true);
      return ERRNO.success;
    },
    environ_get: () => ERRNO.success,
    random_get(buf, len) {
      for (let at = 0; at < len; at += 65536) crypto.getRandomValues(bytes().subarray(buf + at, buf + Math.min(len, at + 65536)));
      return ERRNO.success;
    },
    clock_time_get(_id, _precision, out) {
      view().setBigUint64(out, BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)), true);
      return ERRNO.success;
    },
    fd_prestat_get(fd, out) {
      if (fd !== 3) return ERRNO.badf;
      view().setUint8(out, 0);
      view().setUint32(out + 4, rootName.length, true);
      return ERRNO.success;
    },
    fd_prestat_dir_name(fd, path, len) {
      if (fd !== 3) return ERRNO.badf;
      bytes().set(rootName.subarray(0, len), path);
      return ERRNO.success;
    },
    fd_fdstat_get(fd, out) {
      const type = fd <= 2 ? FILETYPE.characterDevice : fd === 3 ? FILETYPE.directory : open.has(fd) ? FILETYPE.regularFile : undefined;
      if (type === undefined) return ERRNO.badf;
      new Uint8Array(memory().buffer, out, 24).fill(0);
      view().setUint8(out, type);
      view().setBigUint64(out + 8, 0xffffffffffffffffn, true);
      view().setBigUint64(out + 16, 0xffffffffffffffffn, true);
      return ERRNO.success;
    },
    fd_filestat_get(fd, out) {
      const file = open.get(fd);
      if (!file) return ERRNO.badf;
      new Uint8Array(memory().buffer, out, 64).fill(0);
      view().setUint8(out + 16, FILETYPE.regularFile);
      view().setBigUint64(out + 24, 1n, true);
      view().setBigUint64(out + 32, BigInt(file.bytes.length), true);
      return ERRNO.success;
    },
    path_open(dirFd, _dirFlags, path, pathLen, _oflags, _rightsBase, _rightsInheriting, _fdFlags, fdOut) {
      if (dirFd !== 3) return ERRNO.badf;
      const name = normalize(new TextDecoder().decode(bytes().slice(path, path + pathLen)));
      const file = files.get(name);
      if (!file) return ERRNO.noent;
      open.set(nextFd, { bytes: file, at: 0 });
      view().setUint32(fdOut, nextFd++, true);
      return ERRNO.success;
    },
    fd_read(fd, iovs, count, nread) {
      const file = open.get(fd);
      if (!file) return ERRNO.badf;
      let total = 0;
      for (let i = 0; i < count; i++) {
        const [buf, len] = [view().getUint32(iovs + 8 * i, true), view().getUint32(iovs + 8 * i + 4, true)];
        const chunk = file.bytes.subarray(file.at, file.at + len);
        bytes().set(chunk, buf);
        file.at += chunk.length;
        total += chunk.length;
        if (chunk.length < len) break;
      }
      view().setUint32(nread, total, true);
      return ERRNO.success;
    },
    fd_write(fd, iovs, count, nwritten) {
      if (fd !== 1 && fd !== 2) return ERRNO.badf;
      let total = 0;
      for (let i = 0; i < count; i++) {
        const [buf, len] = [view().getUint32(iovs + 8 * i, true), view().getUint32(iovs + 8 * i + 4, true)];
        if (fd === 1) stdout.push(bytes().slice(buf, buf + len));
        total += len;
      }
      view().setUint32(nwritten, total, true);
      return ERRNO.success;
    },
    fd_close(fd) {
      return open.delete(fd) ? ERRNO.success : ERRNO.badf;
    },
    proc_exit(code) {
      throw new Exit(code);
    },
  };
}

/** Run the binary at `wasmUrl` with `args`, the files of `listUrl` (a JSON list of paths under `root`) readable; resolves with its stdout. */
globalThis.runWasi = async ({ wasmUrl, listUrl, root, args }) => {
  const list = await (await fetch(listUrl)).json();
  const files = new Map(await Promise.all(list.map(async (path) => [path, new Uint8Array(await (await fetch(path)).arrayBuffer())])));
  const stdout = [];
  let instance;
  const imports = wasiImports({ args, root, files, memory: () => instance.exports.memory, stdout });
  ({ instance } = await WebAssembly.instantiateStreaming(fetch(wasmUrl), { wasi_snapshot_preview1: imports }));
  try {
    instance.exports._start();
  } catch (error) {
    if (!(error instanceof Exit)) throw error;
    if (error.code !== 0) throw new Error(`mebo-bench exited ${error.code}`);
  }
  const text = new TextDecoder().decode(new Uint8Array(stdout.flatMap((chunk) => [...chunk])));
  return { text, crossOriginIsolated: globalThis.crossOriginIsolated };
};
globalThis.wasiReady = true;
