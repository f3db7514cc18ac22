#!/usr/bin/env bash
# Installs the Debian 12 packages a set needs, only those missing; idempotent.
#   scripts/install-deps.sh build   compiler side: Qt 6, Qt Charts, nlohmann/json, CMake, Ninja
#   scripts/install-deps.sh run     what the GUI needs to show a window (adds Xvfb tools for tests)
#   scripts/install-deps.sh test    everything the test suite uses (Debian's cargo and serde crates
#                                   build the differential test's oracle offline, so it always runs)
set -euo pipefail

build=(cmake ninja-build g++ pkg-config qt6-base-dev qt6-charts-dev libqt6opengl6-dev nlohmann-json3-dev libxxhash-dev libssl-dev zlib1g-dev libgl-dev)
run=(qt6-qpa-plugins fonts-dejavu-core libssl3)
test=(clang libclang-rt-14-dev xvfb xauth xdotool imagemagick python3-numpy
      cargo librust-serde-json-dev librust-serde-derive-dev
      xdg-utils libfile-mimeinfo-perl desktop-file-utils appstream shared-mime-info dpkg-dev file libglib2.0-bin)

wanted=("${build[@]}")
case "${1:-build}" in
  build) ;;
  run) wanted+=("${run[@]}") ;;
  test) wanted+=("${run[@]}" "${test[@]}") ;;
  *) echo "usage: $0 build|run|test" >&2; exit 2 ;;
esac

missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get -o DPkg::Lock::Timeout=600 update -q
$sudo apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"
