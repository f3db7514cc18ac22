#!/usr/bin/env bash
# Builds a Release tree in build-deb/ and packs it into build-deb/safetensors-browser_VERSION_ARCH.deb.
# Its own folder, so the development build's type and options never leak into the package.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
command -v dpkg-shlibdeps >/dev/null || echo "note: dpkg-dev is missing; scripts/install-deps.sh test installs it" >&2

# Debian's hardening flags (stack protector, _FORTIFY_SOURCE, relro and bindnow), as a
# debian/rules build would pass them.
cxxflags="" ldflags=""
if command -v dpkg-buildflags >/dev/null; then
  export DEB_BUILD_MAINT_OPTIONS=hardening=+all
  cxxflags="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CXXFLAGS)"
  ldflags="$(dpkg-buildflags --get LDFLAGS)"
fi
cmake -S . -B build-deb -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTB_BUILD_GUI=ON \
      -DSTB_BUILD_TESTS=OFF -DSTB_BUILD_BENCHMARKS=OFF -DSTB_BUILD_FUZZERS=OFF \
      -DCMAKE_CXX_FLAGS="$cxxflags" -DCMAKE_EXE_LINKER_FLAGS="$ldflags" >/dev/null
cmake --build build-deb -j "${STB_JOBS:-$(nproc)}"
(cd build-deb && cpack -G DEB)
ls -1 build-deb/*.deb
# Debian's package checker, when it is installed (apt install lintian).
if command -v lintian >/dev/null; then
  lintian --fail-on error,warning build-deb/*.deb && echo "lintian: no errors or warnings"
fi
