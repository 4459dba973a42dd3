#!/usr/bin/env bash
# Fill fuzz/corpus/<target>/ with seeds cut from the conformance vectors.
#
#   numeric_decode      every numeric vector blob
#   text_decode         every text vector blob
#   timestamp_decoders  selector + u16 count + one metric's timestamp column
#   value_decoders      selector + u16 count + one metric's value column
#                       (columns cut from the uncompressed v1 numeric vectors)
#   compress_decoders   selector + u32 cap + one compressed payload of a vector
#   round_trip          a few small blobs (any bytes are a valid arbitrary input)
#   blob_set            the windows of each set dataset as `u16 length, bytes` chunks
#   stream              the blobs of each set dataset as a stream of blobs (MBS1 frames)
#
# Usage: fuzz/seed.sh [vectors dir]   (default: testdata/vectors)
# Seeds are named by content hash, so re-running adds nothing twice. The corpus
# directory is gitignored.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
vectors="${1:-$here/../testdata/vectors}"
[ -f "$vectors/manifest.json" ] || { echo "seed.sh: no vectors at $vectors" >&2; exit 1; }
python3 - "$vectors" "$here/corpus" <<'PY'
import hashlib, json, os, struct, sys

vectors, corpus = sys.argv[1], sys.argv[2]
manifest = json.load(open(os.path.join(vectors, "manifest.json")))["cases"]
counts = {}

def put(target, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    path = os.path.join(d, name)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)
        counts[target] = counts.get(target, 0) + 1

TS = {"raw": 0, "delta": 1, "deltapacked": 2}           # order of TimestampEncoding::ALL
VAL = {"raw": 0, "gorilla": 1, "chimp": 2, "alp": 3}     # order of ValueEncoding::ALL
CODEC = {"none": 0, "zstd": 1, "s2": 2, "lz4": 3}        # order of Compression::ALL
MAX_COLUMN = 4096  # keep decoder seeds small: libFuzzer works best on short inputs

for case in manifest:
    blob = open(os.path.join(vectors, case["file"]), "rb").read()
    opts = case["options"]
    if case["kind"] == "text":
        put("text_decode", blob)
        if len(blob) < 2048:
            put("round_trip", blob)
        continue
    put("numeric_decode", blob)
    if len(blob) < 2048:
        put("round_trip", blob)
    big = opts["bigEndian"]
    o = ">" if big else "<"
    count, index_off, ts_off, val_off, tag_off = struct.unpack(o + "5I", blob[12:32])
    # Compressed payloads, with a cap comfortably above any vector's payload.
    for comp, start, end in ((opts["timestampCompression"], ts_off, val_off),
                             (opts["valueCompression"], val_off, tag_off)):
        if comp != "none" and end > start and end - start <= 65536:
            put("compress_decoders", bytes([CODEC[comp]]) + struct.pack("<I", 1 << 24) + blob[start:end])
    # Single columns: v1 layout, no codec, no metric names.
    flags = blob[0] | blob[1] << 8
    if flags & 0xFFF0 != 0xEA10 or flags & 0x4 or blob[3] != 0x11:
        continue
    entries, t = [], [0, 0]
    for i in range(min(count, 8)):
        p = 32 + 16 * i
        _, n, dt, dv, _ = struct.unpack(o + "QHHHH", blob[p:p + 16])
        t[0] += dt; t[1] += dv
        entries.append((n, t[0], t[1]))
    ts_payload, val_payload = blob[ts_off:val_off], blob[val_off:tag_off]
    sel_order = 0x80 if big else 0
    for i, (n, ts_start, val_start) in enumerate(entries):
        nxt = entries[i + 1] if i + 1 < len(entries) else None
        if nxt is None and count > len(entries):
            break  # the column end is the next metric's start, which was not read
        ts_end = nxt[1] if nxt else len(ts_payload)
        val_end = nxt[2] if nxt else len(val_payload)
        ts_col, val_col = ts_payload[ts_start:ts_end], val_payload[val_start:val_end]
        if 0 < len(ts_col) <= MAX_COLUMN:
            put("timestamp_decoders", bytes([TS[opts["timestampEncoding"]] | sel_order]) + struct.pack("<H", n) + ts_col)
        if 0 < len(val_col) <= MAX_COLUMN:
            put("value_decoders", bytes([VAL[opts["valueEncoding"]] | sel_order]) + struct.pack("<H", n) + val_col)

# Blob sets: the four windows of each set dataset, as `u16 length, bytes` chunks.
windows = {}
for case in manifest:
    name = case["name"]
    for ds in ("-set1-w", "-tset1-w"):
        if ds in name:
            key = name.replace(ds + name.split(ds)[1][0], ds + "N")
            windows.setdefault(key, []).append(open(os.path.join(vectors, case["file"]), "rb").read())
for key, blobs in sorted(windows.items()):
    if all(len(b) < 65536 for b in blobs):
        put("blob_set", b"".join(struct.pack("<H", len(b)) + b for b in blobs[:3]) + (blobs[3] if len(blobs) > 3 else b""))
        put("stream", b"MBS1" + b"".join(struct.pack("<I", len(b)) + b for b in blobs))

for target in ("numeric_decode", "text_decode", "timestamp_decoders", "value_decoders", "compress_decoders", "round_trip", "blob_set", "stream"):
    os.makedirs(os.path.join(corpus, target), exist_ok=True)
    print(f"{target}: {counts.get(target, 0)} new seeds, {len(os.listdir(os.path.join(corpus, target)))} in total")
PY
