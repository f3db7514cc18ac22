#!/usr/bin/env bash
# Fuzzes parseHeader for the given number of seconds (default 60) with libFuzzer, ASan and UBSan,
# starting from the seed corpus in tests/fuzz/corpus. Fails on any crash, leak or timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSTB_BUILD_FUZZERS=ON -DSTB_BUILD_GUI=OFF -DSTB_BUILD_TESTS=OFF -DSTB_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build-fuzz --target fuzz_header -j "$(nproc)"
work=$(mktemp -d /tmp/stb-fuzz.XXXXXX)
cp tests/fuzz/corpus/* "$work"/
build-fuzz/tests/fuzz/fuzz_header "$work" -dict=tests/fuzz/safetensors.dict -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 2>&1 | tail -n 15
echo "fuzz: parseHeader ran ${seconds}s without a crash"
