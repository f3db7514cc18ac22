#!/usr/bin/env bash
# Builds the benchmark programs (Release) and runs them on generated data in a scratch folder.
# Each prints its numbers and the ratio against a baseline measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTB_BUILD_TESTS=OFF -DSTB_BUILD_GUI=ON -DSTB_BUILD_BENCHMARKS=ON >/dev/null
cmake --build build-bench -j "$(nproc)"
# Generated data goes to a scratch folder removed at the end, or to STB_BENCH_DIR, which is
# created if needed and never removed (the benchmarks write only their own files into it, and
# bench_audit reuses its checkpoint when it is there).
if [ -n "${STB_BENCH_DIR:-}" ]; then
  work="$STB_BENCH_DIR"
  mkdir -p "$work"
else
  work=$(mktemp -d /tmp/stb-bench.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
for bench in build-bench/tests/bench/bench_*; do
  [ -f "$bench" ] && [ -x "$bench" ] || continue   # skip CMake's autogen folders
  echo "== $(basename "$bench")"
  "$bench" "$work"
done
