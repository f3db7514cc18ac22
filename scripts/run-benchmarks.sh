#!/usr/bin/env bash
# Builds the benchmark programs (Release) and runs them on generated data in a scratch folder.
# Each prints its numbers and the ratio against a baseline measured in the same run. The audit,
# diff, header, quant and values benchmarks run once per family of statistics kernels the CPU can run
# (STB_KERNELS=auto, and =portable on an AVX-512 CPU, so both are measured on one machine); a
# summary of issues 16's, 13's and 11's ratios, each with the kernels that ran and the load average
# when it ran (other work on the machine skews a run), ends the output.
#   STB_BENCH_DIR=FOLDER    keep the generated data there (reused by the next run)
#   STB_BENCHMARKS="..."    only these benchmarks (e.g. "bench_audit bench_compare bench_header")
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTB_BUILD_TESTS=OFF -DSTB_BUILD_GUI=ON -DSTB_BUILD_BENCHMARKS=ON >/dev/null
# STB_BENCHMARKS="bench_audit bench_header" builds and runs only those.
if [ -n "${STB_BENCHMARKS:-}" ]; then
  cmake --build build-bench -j "$(nproc)" --target safetensors-inspect $STB_BENCHMARKS
else
  cmake --build build-bench -j "$(nproc)"
fi
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

# The reference reader for `check`: the differential test's oracle (serde + serde_json with the
# reference's rules, built offline from Debian's crates by tests/differential/run.sh), when a
# test build already made it. Never built here: it is optional.
for oracle in build/tests/differential/target/release/oracle build-*/tests/differential/target/release/oracle; do
  if [ -x "$oracle" ]; then
    export STB_REFERENCE_READER="$PWD/$oracle"
    break
  fi
done

avx512=$(grep -c avx512f /proc/cpuinfo || true)
echo "CPU: $(nproc) hardware threads; $avx512 of them report avx512f"
if [ "$avx512" -gt 0 ]; then
  families=(auto portable)
else
  families=(auto)
  echo "No AVX-512 here: the portable kernels are the only ones this CPU runs, so each benchmark runs once."
fi

summary="$work/summary.txt"
: > "$summary"
for bench in build-bench/tests/bench/bench_*; do
  [ -f "$bench" ] && [ -x "$bench" ] || continue   # skip CMake's autogen folders
  name=$(basename "$bench")
  if [ -n "${STB_BENCHMARKS:-}" ] && [[ " $STB_BENCHMARKS " != *" $name "* ]]; then
    continue
  fi
  case "$name" in
    bench_audit|bench_compare|bench_header|bench_quant|bench_values) runs=("${families[@]}") ;;
    *) runs=(auto) ;;
  esac
  # bench_quant four times: the Histogram pane's 64 bins and none (the CLI audit table), each
  # with uniform codes and with heavy-tailed ones (BENCH_HEAVY=1: values beyond 6σ, so that the
  # second pass counts outliers, as on trained weights).
  binsList=(default)
  [ "$name" = bench_quant ] && binsList=(64 0 heavy-64 heavy-0)
  for family in "${runs[@]}"; do
    for bins in "${binsList[@]}"; do
      out="$work/$name-$family.out"
      [ "$bins" = default ] || out="$work/$name-$family-$bins-bins.out"
      heavy=""
      [ "${bins#heavy-}" = "$bins" ] || heavy=1
      setting=""
      [ "$bins" = default ] || setting=", BENCH_BINS=${bins#heavy-}${heavy:+, BENCH_HEAVY=1}"
      echo "== $name (STB_KERNELS=$family$setting)"
      if [ "$bins" = default ]; then
        STB_KERNELS=$family "$bench" "$work" | tee "$out"
      else
        BENCH_HEAVY=$heavy BENCH_BINS=${bins#heavy-} STB_KERNELS=$family "$bench" "$work" | tee "$out"
      fi
      # The issue-16, issue-13 and issue-11 ratio lines, with the kernels line of the same run and the load.
      kernels=$(grep -m1 '^kernels:' "$out" | cut -d' ' -f2 || true)
      load=$(cut -d' ' -f1-3 /proc/loadavg)
      grep -E '^issue 1[136]' "$out" | sed "s/^/[$kernels, load $load] /" >> "$summary" || true
    done
  done
done
# Cold cache (issue 16): the audit of a file not in the page cache against dd's sequential read
# of the same file, each after dropping the caches (root only: /proc/sys/vm/drop_caches). Median
# of three alternated runs; both are whole processes reading the whole file.
cold="$work/bench-audit.safetensors"
if [ -f "$cold" ] && [ -w /proc/sys/vm/drop_caches ]; then
  echo "== cold cache: audit vs dd of $(basename "$cold") ($(du -h --apparent-size "$cold" | cut -f1))"
  seconds() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'; }
  gbps() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.2f", n / s / 1e9 }'; }
  dropped() { sync; echo 3 > /proc/sys/vm/drop_caches; "$@"; }
  dds=(); audits=()
  for _ in 1 2 3; do
    dds+=("$(dropped seconds dd if="$cold" of=/dev/null bs=16M)")
    audits+=("$(dropped seconds build-bench/app/safetensors-inspect audit --json "$cold")")
  done
  median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
  dd_s=$(median "${dds[@]}"); audit_s=$(median "${audits[@]}")
  bytes=$(stat -c %s "$cold")
  echo "dd bs=16M, caches dropped:    $dd_s s  ($(gbps "$bytes" "$dd_s") GB/s)"
  echo "audit --json, caches dropped: $audit_s s  ($(gbps "$bytes" "$audit_s") GB/s)"
  ratio=$(awk -v d="$dd_s" -v a="$audit_s" 'BEGIN { printf "%.2f", d / a }')
  echo "[$(grep -m1 '^kernels:' "$work/bench_audit-auto.out" | cut -d' ' -f2 || true), load $(cut -d' ' -f1-3 /proc/loadavg)] issue 16: cold-cache audit / dd sequential read of the same file: $ratio (target >= 0.9; audit $audit_s s, dd $dd_s s)" >> "$summary"
elif [ -f "$cold" ]; then
  echo "issue 16: cold-cache audit: not measured (dropping the page cache needs root)" >> "$summary"
fi

echo
echo "== issue 16, 13 and 11 ratios (each against a baseline measured in the same run; $(nproc) hardware threads)"
cat "$summary"
