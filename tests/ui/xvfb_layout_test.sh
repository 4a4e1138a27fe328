#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a Qt test binary in a real X server: its own Xvfb (display chosen by
# Xvfb itself, -displayfd, so parallel tests never collide), Qt's xcb
# platform, at QT_SCALE_FACTOR=SCALE, with screenshots written to
# SHOTS (TB_LAYOUT_SCREENSHOT_DIR). The screen is large enough for a
# 1920x1080 window at scale 2.
# Usage: xvfb_layout_test.sh SCALE SHOTS TEST-BINARY [ARGS...]
set -uo pipefail
scale=$1 shots=$2
shift 2
command -v Xvfb > /dev/null || {
  echo "xvfb_layout_test.sh: Xvfb is not installed (Debian: xvfb; packaging/install-deps.sh installs it)" >&2
  exit 1
}
work=$(mktemp -d)
Xvfb -displayfd 3 -screen 0 3840x2400x24 -nolisten tcp 3> "$work/display" 2> "$work/xvfb.log" &
xvfb=$!
trap 'kill "$xvfb" 2> /dev/null; wait "$xvfb" 2> /dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  [[ -s $work/display ]] && break
  kill -0 "$xvfb" 2> /dev/null || break
  sleep 0.1
done
display=$(tr -dc '0-9' < "$work/display")
[[ -n $display ]] || {
  echo "xvfb_layout_test.sh: Xvfb gave no display within 10 s:" >&2
  cat "$work/xvfb.log" >&2
  exit 1
}
rm -rf "$shots"
DISPLAY=:$display QT_QPA_PLATFORM=xcb QT_SCALE_FACTOR=$scale TB_LAYOUT_SCREENSHOT_DIR=$shots "$@"
