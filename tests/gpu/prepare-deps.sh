#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Gathers, on a Debian 12 machine with the project's packages, what the GPU
# machine lacks and can take as plain files: the header-only libraries
# (nlohmann/json, CLI11, with their relocatable CMake packages) and gloo's
# headers, which ProcessGroupGloo.hpp includes and an upstream LibTorch does
# not ship (its gloo code is inside libtorch_cpu). The folder travels with the
# working tree (the device tool's carry); run-on-gpu.sh builds against it.
#
# Usage: tests/gpu/prepare-deps.sh [DIR]   (default build/gpu-deps)
# Exit codes: 0 done, 1 a header set is missing here (install-deps first).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build/gpu-deps}

need() {
  [[ -e $1 ]] || { echo "prepare-deps.sh: $1 not found (run packaging/install-deps.sh first)" >&2; exit 1; }
}
for path in /usr/include/nlohmann /usr/include/CLI /usr/include/gloo \
            /usr/share/cmake/nlohmann_json /usr/share/cmake/CLI11; do
  need "$path"
done

staging=$(mktemp -d "${out%/}.XXXXXX")
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging/include" "$staging/share/cmake"
cp -a /usr/include/nlohmann /usr/include/CLI /usr/include/gloo "$staging/include/"
cp -a /usr/share/cmake/nlohmann_json /usr/share/cmake/CLI11 "$staging/share/cmake/"
{
  echo "Copied $(date -u +%Y-%m-%dT%H:%MZ) on $(. /etc/os-release && echo "$PRETTY_NAME") from:"
  dpkg-query -W -f='  ${Package} ${Version}\n' nlohmann-json3-dev libcli11-dev libgloo-dev 2>/dev/null || true
} > "$staging/SOURCES.txt"
rm -rf "$out"
mv "$staging" "$out"
trap - EXIT
echo "prepare-deps.sh: $(du -sh "$out" | cut -f1) in $out"
