#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the Debian packages of a configured and built tree into OUT_DIR and
# prints their paths, the CLI's first: the one way check-packages.sh and
# check-install.sh (and a person) make them.
# Usage: packaging/make-debs.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
out=$(cd "$out" && pwd)
command -v cpack > /dev/null || { echo "make-debs.sh: cpack is not installed" >&2; exit 1; }
[[ -f "$build/CPackConfig.cmake" ]] ||
  { echo "make-debs.sh: $build has no CPackConfig.cmake (configure with TB_BUILD_PACKAGING=ON)" >&2; exit 1; }
rm -f "$out"/trainbench_*.deb "$out"/trainbench-studio_*.deb
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$out" > "$out/cpack.log" 2>&1 ||
  { cat "$out/cpack.log" >&2; echo "make-debs.sh: cpack failed" >&2; exit 1; }
ls "$out"/trainbench_*.deb
ls "$out"/trainbench-studio_*.deb 2> /dev/null || true
