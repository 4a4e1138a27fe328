#!/usr/bin/env bash
# Installs what is missing, builds the release tree and starts TrainBench
# Studio. Where there is no display it runs the CLI's main job instead: the
# four-step ablation (Base, AC2, +CompilerOpt, +CkptOpt) of the `small` model
# on the embedded engine, then its HTML report. Extra arguments go to the
# Studio, or to `trainbench benchmark` where there is no display.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake --workflow --preset release
bin=build/release/bin
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
  exec "$bin/trainbench-studio" "$@"
fi
out=ablation-small
echo "start: no display found (DISPLAY and WAYLAND_DISPLAY are unset);"
echo "start: running the CLI's main job instead: the ablation of the small model"
echo "start: (about ten minutes on two cores; Ctrl-C keeps the finished runs)"
echo
status=0
"$bin/trainbench" benchmark --model small --ablation --repeats 3 --out "$out" "$@" || status=$?
if [[ -f "$out/results.json" ]]; then
  "$bin/trainbench" report --in "$out/results.json" --format html --out "$out/report.html"
  echo "start: results in $out/results.json, report in $out/report.html"
fi
exit "$status"
