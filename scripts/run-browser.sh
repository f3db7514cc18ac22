#!/usr/bin/env bash
# Builds the browser and starts it on the bundled sample checkpoint (or on the files given).
# Installs missing Debian packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh run
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# Only the two programs: the tests are the other command's business.
cmake --build build -j "$(nproc)" --target safetensors-browser safetensors-inspect
if [ -x build/app/browser/safetensors-browser ]; then
  exec build/app/browser/safetensors-browser "$@"
fi
exec build/app/safetensors-inspect info "${@:-resources/sample/sample.safetensors}"
