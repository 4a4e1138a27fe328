#!/usr/bin/env bash
# Installs what is missing, builds everything under AddressSanitizer and UBSan
# with warnings as errors (the ci preset), and runs the whole test suite
# sanitized (CTest lists every test by name). CI calls this.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake --workflow --preset ci
