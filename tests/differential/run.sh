#!/usr/bin/env bash
# Differential test: our validator against an oracle built from the parser the reference uses
# (serde + serde_json from Debian's Rust crates, offline). `scripts/install-deps.sh test` installs
# Debian's cargo and crates; exit 77 (skipped) only where they are missing.
#   run.sh INSPECT_BINARY WORK_FOLDER [SEED...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
inspect="$1"; work="$2"; shift 2
seeds=("${@:-1 2}")
# Debian's cargo first: its rustc is the one Debian's crates are packaged for. A rustup cargo
# (under ~/.cargo/bin, often first on PATH) builds them too and is the fallback. Cargo.lock stays
# at version 3, which both read (Debian 12's cargo 1.65 rejects version 4).
cargo=/usr/bin/cargo
if [ ! -x "$cargo" ]; then
  cargo="$(PATH="$PATH:${HOME:-/root}/.cargo/bin" command -v cargo || true)"
fi
if [ -z "$cargo" ] || ! ls -d /usr/share/cargo/registry/serde_json-* >/dev/null 2>&1; then
  echo "cargo or Debian's serde crates missing (scripts/install-deps.sh test installs them): skipped"
  exit 77
fi
echo "oracle built with $("$cargo" --version)"
mkdir -p "$work/cargo-home"
cat > "$work/cargo-home/config.toml" <<'TOML'
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
TOML
CARGO_HOME="$work/cargo-home" CARGO_TARGET_DIR="$work/target" \
  "$cargo" build --quiet --release --offline --locked --manifest-path "$here/oracle/Cargo.toml"
for seed in ${seeds[@]}; do
  rm -rf "$work/cases"
  python3 "$here/generate_cases.py" "$seed" "$work/cases" >/dev/null
  python3 "$here/compare_verdicts.py" "$inspect" "$work/target/release/oracle" "$work/cases"
done
