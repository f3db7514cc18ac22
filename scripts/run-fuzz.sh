#!/usr/bin/env bash
# Runs every libFuzzer target (ASan + UBSan) for the given number of seconds in all (default 60,
# shared equally), each from its seed corpus in tests/fuzz/corpus. Fails on any crash, leak or
# timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSTB_BUILD_FUZZERS=ON -DSTB_BUILD_GUI=OFF -DSTB_BUILD_TESTS=OFF -DSTB_BUILD_BENCHMARKS=OFF >/dev/null
targets=(fuzz_header fuzz_escape fuzz_file fuzz_slicespec fuzz_quant fuzz_quantconfig)
cmake --build build-fuzz --target "${targets[@]}" -j "$(nproc)"
each=$(( seconds / ${#targets[@]} ))
[ "$each" -ge 1 ] || each=1
for target in "${targets[@]}"; do
  work=$(mktemp -d /tmp/stb-fuzz.XXXXXX)
  cp tests/fuzz/corpus/* "$work"/
  build-fuzz/tests/fuzz/"$target" "$work" -dict=tests/fuzz/safetensors.dict -max_total_time="$each" -max_len=4096 \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 2>&1 | tail -n 15
  rm -rf "$work"
  echo "fuzz: $target ran ${each}s without a crash"
done
