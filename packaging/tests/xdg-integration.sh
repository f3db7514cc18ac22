#!/usr/bin/env bash
# Installs the project into a scratch prefix and checks, with the freedesktop tools a file manager
# relies on, that checkpoint files get our MIME types and our desktop entry as their handler.
# With --launch it then opens a checkpoint the way a double-click does (xdg-open) and through the
# desktop entry itself (gio launch) under a private Xvfb, and checks the browser shows the file.
#   xdg-integration.sh BUILD_DIR APP_ID SAMPLE [--launch]
# The XDG variables point only at scratch folders, so nothing the machine has installed (not
# even this very package) can make the test pass, and the test changes nothing outside.
set -euo pipefail
build=$1 app_id=$2 sample=$3 launch=${4:-}

scratch=$(mktemp -d /tmp/stb-xdg.XXXXXX)
prefix=$scratch/usr
xvfb_pid=
cleanup() {
  stop_browsers
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null
  rm -rf "$scratch"
}
fail() { echo "FAIL: $*" >&2; exit 1; }

# Browser processes started by this test: their command lines name a file under $scratch.
our_browsers() {
  local pid
  for pid in $(pgrep -f -- "$scratch" || true); do
    [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$prefix/bin/safetensors-browser" ] && echo "$pid"
  done
  return 0
}
stop_browsers() {
  local pids
  pids=$(our_browsers)
  [ -z "$pids" ] && return 0
  kill $pids 2>/dev/null || true
  for _ in $(seq 50); do
    [ -z "$(our_browsers)" ] && return 0
    sleep 0.1
  done
  kill -KILL $(our_browsers) 2>/dev/null || true
}
trap cleanup EXIT

"${CMAKE:-cmake}" --install "$build" --prefix "$prefix" >"$scratch/install.log" || { cat "$scratch/install.log"; fail "install"; }

mkdir -p "$scratch"/{home,config,cache,etc/xdg,files} "$scratch/runtime"
chmod 0700 "$scratch/runtime"
export HOME=$scratch/home XDG_DATA_HOME=$scratch/home/.local/share XDG_CONFIG_HOME=$scratch/config
export XDG_CACHE_HOME=$scratch/cache XDG_CONFIG_DIRS=$scratch/etc/xdg XDG_DATA_DIRS=$prefix/share
export XDG_RUNTIME_DIR=$scratch/runtime PATH=$prefix/bin:$PATH BROWSER=false
# Without a desktop environment xdg-utils use the freedesktop databases, which is what we test.
unset XDG_CURRENT_DESKTOP XDG_SESSION_DESKTOP DESKTOP_SESSION KDE_FULL_SESSION GNOME_DESKTOP_SESSION_ID \
      XDG_MENU_PREFIX MATE_DESKTOP_SESSION_ID DBUS_SESSION_BUS_ADDRESS

# The system's own types, copied in, so *.json is a real rival of the index's longer glob.
mime=$prefix/share/mime
cp /usr/share/mime/packages/freedesktop.org.xml "$mime/packages/"
update-mime-database "$mime"
update-desktop-database "$prefix/share/applications"

files=$scratch/files
cp "$sample" "$files/tiny-llama.safetensors"
cp "$sample" "$files/model-00001-of-00001.safetensors"
printf '{"metadata": {}, "weight_map": {}}\n' >"$files/model.safetensors.index.json"
printf '{}\n' >"$files/config.json"

expect() { # expect WHAT ACTUAL WANTED
  [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
  echo "ok: $1 = $3"
}
expect "type of .safetensors" "$(xdg-mime query filetype "$files/tiny-llama.safetensors")" application/x-safetensors
expect "type of index" "$(xdg-mime query filetype "$files/model.safetensors.index.json")" \
  application/x-safetensors-index+json
expect "type of other JSON" "$(xdg-mime query filetype "$files/config.json")" application/json
expect "handler of application/x-safetensors" "$(xdg-mime query default application/x-safetensors)" \
  "$app_id.desktop"
expect "handler of the index" "$(xdg-mime query default application/x-safetensors-index+json)" \
  "$app_id.desktop"

[ "$launch" = --launch ] || exit 0
[ -x "$prefix/bin/safetensors-browser" ] || fail "safetensors-browser was not installed"

# A private X server; -displayfd picks a free display, so parallel runs do not collide.
exec 9>"$scratch/display"
Xvfb -displayfd 9 -screen 0 1280x800x24 -nolisten tcp >"$scratch/xvfb.log" 2>&1 &
xvfb_pid=$!
exec 9>&-
for _ in $(seq 100); do
  [ -s "$scratch/display" ] && break
  sleep 0.1
done
[ -s "$scratch/display" ] || { cat "$scratch/xvfb.log"; fail "Xvfb did not start"; }
export DISPLAY=:$(head -1 "$scratch/display")
unset QT_QPA_PLATFORM WAYLAND_DISPLAY

# Waits for our browser to run with FILE as an argument and show a window titled with TITLE
# (the file's name unless given).
expect_browser_with() {
  local file=$1 how=$2 title=${3:-$(basename "$1")} pid= window=
  for _ in $(seq 150); do
    for pid in $(our_browsers); do
      tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qxF -- "$file" && break 2
    done
    sleep 0.1
  done
  [ -n "$pid" ] || fail "$how: no safetensors-browser process with argument $file"
  echo "ok: $how started safetensors-browser (pid $pid) with $file"
  for _ in $(seq 150); do
    window=$(xdotool search --onlyvisible --name "$title" 2>/dev/null | head -1 || true)
    [ -n "$window" ] && break
    sleep 0.1
  done
  [ -n "$window" ] || fail "$how: no window titled with $title"
  echo "ok: $how: window '$(xdotool getwindowname "$window")'"
  stop_browsers
}

# A double-click in a file manager without a desktop environment: xdg-open runs the handler in
# the foreground, so it is bounded and left in the background.
timeout 60 xdg-open "$files/tiny-llama.safetensors" >"$scratch/xdg-open.log" 2>&1 &
expect_browser_with "$files/tiny-llama.safetensors" xdg-open
wait $! || true

gio launch "$prefix/share/applications/$app_id.desktop" "$files/model.safetensors.index.json" \
  >"$scratch/gio.log" 2>&1 || { cat "$scratch/gio.log"; fail "gio launch"; }
# A sharded model is titled by its folder: every Hub index has the same name.
expect_browser_with "$files/model.safetensors.index.json" "gio launch" "$(basename "$files")"
