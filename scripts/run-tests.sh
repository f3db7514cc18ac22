#!/usr/bin/env bash
# Builds everything and runs the whole test suite headless: the Qt Test suites (CTest), then a
# short libFuzzer run of the header parser. Installs missing Debian packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test

export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d /tmp/stb-runtime.XXXXXX)}"
chmod 0700 "$XDG_RUNTIME_DIR"
jobs=$(nproc)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

# Coverage-guided fuzzing of parseHeader with clang's libFuzzer (a separate instrumented build).
scripts/run-fuzz.sh "${STB_FUZZ_SECONDS:-60}"
