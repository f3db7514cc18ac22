#!/usr/bin/env bash
# Builds the .deb from an already built tree into a scratch folder and checks what it holds.
#   deb-contents.sh BUILD_DIR PATH...   (PATH: files expected in the package, e.g. usr/bin/x)
set -euo pipefail
build=$1
shift

scratch=$(mktemp -d /tmp/stb-deb.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$build" && "${CPACK:-cpack}" -G DEB -B "$scratch") >"$scratch/cpack.log" 2>&1 || { cat "$scratch/cpack.log"; fail "cpack"; }
deb=$(ls "$scratch"/*.deb)
echo "built $(basename "$deb")"

dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./||' >"$scratch/contents"
for path in "$@"; do
  grep -qxF -- "$path" "$scratch/contents" || fail "$path is not in the package"
  echo "ok: $path"
done

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
grep -qE '(^|, )qt6-qpa-plugins($|[ ,])' <<<"$depends" || fail "Depends lacks qt6-qpa-plugins"
grep -q 'libqt6core6' <<<"$depends" || fail "Depends lacks what dpkg-shlibdeps finds (libqt6core6)"
[ "$(dpkg-deb -f "$deb" Package)" = safetensors-browser ] || fail "package name"

# Debian's triggers register the MIME types and the desktop entry: no maintainer scripts.
dpkg-deb --ctrl-tarfile "$deb" | tar -t | grep -E 'preinst|postinst|prerm|postrm' && fail "maintainer scripts"

# Installed programs find Qt in the system's library path: no RUNPATH pointing elsewhere.
dpkg-deb -x "$deb" "$scratch/root"
for program in "$scratch"/root/usr/bin/*; do
  if readelf -d "$program" | grep -qE 'RPATH|RUNPATH'; then
    fail "$(basename "$program") has a RUNPATH: $(readelf -d "$program" | grep -E 'RPATH|RUNPATH')"
  fi
done
echo "ok: no maintainer scripts, no RUNPATH"
