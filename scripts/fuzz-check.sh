#!/usr/bin/env bash
# Bounded hostile-input check, for `npm test` and by hand. Run from anywhere.
#
# With `cargo +nightly` and `cargo fuzz` available: seed fuzz/corpus from the
# conformance vectors, build the cargo-fuzz targets (with debug assertions, so
# integer overflow is a finding too) and run each for FUZZ_SECONDS (default 8)
# seconds. Otherwise, or with FUZZ_MODE=deterministic: the deterministic
# mutation tests, which cover the same surfaces (every vector cut and
# bit-flipped through every accessor, every codec column decoder and
# decompressor over mutated input, seeded round trips).
#
# Exits non-zero on any finding (crash, panic, timeout, out-of-memory, a
# decoder contradicting itself); crashing inputs land in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(numeric_decode text_decode timestamp_decoders value_decoders compress_decoders round_trip blob_set zstd_part stream)
seconds="${FUZZ_SECONDS:-8}"

have_cargo_fuzz() {
  cargo +nightly --version >/dev/null 2>&1 && cargo +nightly fuzz --version >/dev/null 2>&1
}

deterministic() {
  echo "fuzz-check: deterministic mutation run (cargo test --release)"
  cargo test --release -p mebo --test mutations --test hostile
  cargo test --release -p mebo-zstd --test against_libzstd
}

if [ "${FUZZ_MODE:-}" = deterministic ] || ! have_cargo_fuzz; then
  [ "${FUZZ_MODE:-}" = deterministic ] || echo "fuzz-check: cargo +nightly fuzz not available"
  deterministic
  exit $?
fi

bash fuzz/seed.sh testdata/vectors

# Built outside the work tree by default, so a fresh clone on the same machine
# (CI) reuses the sanitizer build of the dependencies (minutes on 2 cores).
target_dir="${MEBO_FUZZ_TARGET_DIR:-${HOME:-/tmp}/.cache/mebo/fuzz-target}"
mkdir -p "$target_dir"
echo "fuzz-check: building the fuzz targets in $target_dir"
(cd fuzz && cargo +nightly fuzz build -a --target-dir "$target_dir")

failed=()
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  extra=()
  case "$t" in
    numeric_decode|text_decode|stream) extra=(-max_len=65536) ;;
  esac
  echo "fuzz-check: $t for ${seconds}s"
  # -malloc_limit_mb: a single allocation this large from a small input is a finding.
  if ! (cd fuzz && cargo +nightly fuzz run -a --target-dir "$target_dir" "$t" -- \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
      -print_final_stats=1 "${extra[@]}" 2>&1 | tail -n 25); then
    failed+=("$t")
  fi
done

if [ "${#failed[@]}" -ne 0 ]; then
  echo "fuzz-check: FINDINGS in: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz-check: ${#targets[@]} targets, no finding"
