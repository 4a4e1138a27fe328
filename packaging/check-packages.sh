#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the Debian packages from a configured and built tree and checks them
# as a distribution would: lintian (no error and no warning; the tags kept
# are listed in docs/PACKAGING.md), desktop-file-validate on the desktop
# entry, appstreamcli validate --no-net on the AppStream metadata, and the
# files each package must hold. ctest runs it (Packaging.*); so can a person.
# Usage: packaging/check-packages.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check-packages.sh: $*" >&2; exit 1; }

for tool in cpack lintian desktop-file-validate appstreamcli dpkg-deb objdump; do
  command -v "$tool" > /dev/null || fail "$tool is not installed (packaging/install-deps.sh installs it)"
done

desktop-file-validate "$root/resources/trainbench-studio.desktop"
# The one info kept: the id is the reverse of example.invalid, which the
# validator cannot tell from a name that is not reverse-DNS.
appstreamcli validate --no-net --explain "$root"/resources/*.metainfo.xml

"$root/packaging/make-debs.sh" "$build" "$work" > /dev/null || fail "the packages could not be built"
cli=$(ls "$work"/trainbench_*.deb)
studio=$(ls "$work"/trainbench-studio_*.deb)

# --fail-on warning: a warning is a defect here too.
lintian --fail-on error,warning --tag-display-limit 0 "$cli" "$studio" 2>&1 | grep -v "running with root privileges" || true
lintian --fail-on error,warning --tag-display-limit 0 "$cli" "$studio" > /dev/null 2>&1 || fail "lintian reported the above"

holds() {  # holds PACKAGE PATH...: each path is in the package
  local package=$1
  shift
  local listing
  listing=$(dpkg-deb -c "$package" | awk '{print $6}')
  for path in "$@"; do
    grep -qx "./$path" <<< "$listing" || fail "$(basename "$package") lacks /$path"
  done
}
holds "$cli" usr/bin/trainbench usr/share/man/man1/trainbench.1.gz usr/share/doc/trainbench/copyright \
  usr/share/trainbench/releases.json usr/share/doc/trainbench/docs/CLI.md
holds "$studio" usr/bin/trainbench-studio usr/bin/trainbench-charts usr/share/applications/trainbench-studio.desktop \
  usr/share/metainfo/invalid.example.trainbench.studio.metainfo.xml \
  usr/share/icons/hicolor/scalable/apps/trainbench-studio.svg usr/share/icons/hicolor/48x48/apps/trainbench-studio.png \
  usr/share/man/man1/trainbench-studio.1.gz usr/share/doc/trainbench-studio/copyright
# Every library the programs load at start must come from a Debian package:
# one from elsewhere (the CUDA toolkit's NCCL, say) is missing on the user's
# machine whatever Depends says. NCCL and CUDA are opened at run time instead.
unpacked="$work/unpacked"
for package in "$cli" "$studio"; do dpkg-deb -x "$package" "$unpacked"; done
# Each library is asked about once, though several programs need it.
declare -A needed_by=()
for program in "$unpacked"/usr/bin/*; do
  while read -r soname; do
    needed_by[$soname]=$(basename "$program")
  done < <(objdump -p "$program" | awk '$1 == "NEEDED" {print $2}')
done
for soname in "${!needed_by[@]}"; do
  dpkg -S "*/$soname" > /dev/null 2>&1 ||
    fail "${needed_by[$soname]} needs $soname, which no Debian package installed here provides"
done
# The Studio needs the CLI of the same build; the CLI needs no Qt.
version=$(dpkg-deb -f "$cli" Version)
dpkg-deb -f "$studio" Depends | grep -q "trainbench (= $version)" || fail "trainbench-studio does not depend on trainbench (= $version)"
if dpkg-deb -f "$cli" Depends | grep -qi "qt"; then fail "trainbench depends on Qt: $(dpkg-deb -f "$cli" Depends)"; fi
echo "check-packages.sh: $(basename "$cli") and $(basename "$studio") pass lintian, the desktop entry and AppStream data validate"
