#!/usr/bin/env bash
# Differential test: our validator against an oracle built from the parser the reference uses
# (serde + serde_json from Debian's Rust crates, offline). Exit 77 (skipped) without cargo.
#   run.sh INSPECT_BINARY WORK_FOLDER [SEED...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
inspect="$1"; work="$2"; shift 2
seeds=("${@:-1 2}")
# rustup installs cargo under ~/.cargo/bin, which a non-login shell may not have on its PATH.
PATH="$PATH:${HOME:-/root}/.cargo/bin"
if ! command -v cargo >/dev/null || ! ls -d /usr/share/cargo/registry/serde_json-* >/dev/null 2>&1; then
  echo "cargo or Debian's serde crates missing: skipped"; exit 77
fi
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
  cargo build --quiet --release --offline --manifest-path "$here/oracle/Cargo.toml"
for seed in ${seeds[@]}; do
  rm -rf "$work/cases"
  python3 "$here/generate_cases.py" "$seed" "$work/cases" >/dev/null
  python3 "$here/compare_verdicts.py" "$inspect" "$work/target/release/oracle" "$work/cases"
done
