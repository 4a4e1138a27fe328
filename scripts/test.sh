#!/usr/bin/env bash
# Installs what is missing, builds everything with warnings as errors, and runs
# the whole test suite (CTest lists every test by name). CI calls this.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake --workflow --preset ci
