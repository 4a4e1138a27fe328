#!/usr/bin/env bash
# Installs what is missing, builds the release tree and starts TrainBench
# Studio. Where there is no display it runs the CLI's main job instead: the
# compatibility report for this host against every release in the catalog.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake --workflow --preset release
bin=build/release/bin
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
  exec "$bin/trainbench-studio" "$@"
fi
echo "start: no display found (DISPLAY and WAYLAND_DISPLAY are unset);"
echo "start: running the CLI's main job instead: trainbench compat --all"
echo
exec "$bin/trainbench" compat --all "$@"
