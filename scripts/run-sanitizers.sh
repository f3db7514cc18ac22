#!/usr/bin/env bash
# Builds everything with AddressSanitizer and UBSan and runs the whole suite under them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d /tmp/stb-runtime.XXXXXX)}"
chmod 0700 "$XDG_RUNTIME_DIR"
# Qt's own code is not instrumented; leaks inside Qt's plugins are not ours.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSTB_SANITIZE=ON -DSTB_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build-asan -j "$(nproc)"
ctest --test-dir build-asan --output-on-failure -j "$(nproc)"
