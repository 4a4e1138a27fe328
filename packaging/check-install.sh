#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Proves the packages' declared dependencies are enough: builds the .debs of
# a built tree, makes a clean Debian 12 root with debootstrap (minbase, no
# recommends), installs the packages there with apt (which brings exactly
# what they declare), and runs, as an ordinary user of that root:
#   trainbench --version, trainbench images, trainbench compat --all,
#   a short trainbench run --model tiny, and the Studio's screenshot of the
#   Image page (offscreen).
# It needs root (debootstrap, chroot, mount) and Debian's mirror; it takes
# minutes, so it runs on demand, not in CI. The root is cached as a tarball
# (TB_ROOT_CACHE, default ~/.cache/trainbench/bookworm-minbase.tar) so a
# second run skips debootstrap. The screenshot, the run's summary.json and
# a log of every step are left in RESULT_DIR.
# Usage: sudo packaging/check-install.sh BUILD_DIR [RESULT_DIR]
set -euo pipefail
source_root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "check-install.sh: $*" >&2; exit 1; }
[[ $# -ge 1 ]] || fail "usage: packaging/check-install.sh BUILD_DIR [RESULT_DIR]"
build=$(cd "$1" && pwd) || fail "no build directory $1"
results=$(mkdir -p "${2:-$build/check-install}" && cd "${2:-$build/check-install}" && pwd)
mirror=${TB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${TB_ROOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trainbench/bookworm-minbase.tar}
[[ $(id -u) -eq 0 ]] || fail "run it as root: debootstrap, chroot and mount need it"
for tool in debootstrap chroot mount tar; do
  command -v "$tool" > /dev/null || fail "$tool is not installed (apt-get install debootstrap)"
done

work=$(mktemp -d /var/tmp/tb-check-install.XXXXXX)
root=$work/root
log=$results/check-install.log
: > "$log"
cleanup() {
  for mount in "$root/dev/pts" "$root/dev" "$root/sys" "$root/proc"; do
    if mountpoint -q "$mount" 2> /dev/null; then umount -l "$mount" || true; fi
  done
  # Only after every mount is gone: rm must never reach the host's /dev.
  if ! grep -q " $root/" /proc/mounts; then rm -rf "$work"; fi
}
trap cleanup EXIT
step() { echo "== $*" | tee -a "$log"; }
started=$SECONDS

step "packages of $build"
mapfile -t debs < <("$source_root/packaging/make-debs.sh" "$build" "$work/debs")
[[ ${#debs[@]} -eq 2 ]] || fail "expected the trainbench and trainbench-studio packages, got: ${debs[*]}"
for deb in "${debs[@]}"; do
  { echo "$(basename "$deb")"; dpkg-deb -f "$deb" Depends; } | tee -a "$log"
done

mkdir -p "$root"
if [[ -f "$cache" ]]; then
  step "root from $cache"
  tar -xf "$cache" -C "$root"
else
  step "debootstrap --variant=minbase bookworm from $mirror"
  timeout 1800 debootstrap --variant=minbase bookworm "$root" "$mirror" >> "$log" 2>&1 ||
    fail "debootstrap failed (the end of $log says why)"
  mkdir -p "$(dirname "$cache")"
  tar -cf "$cache.partial" -C "$root" . && mv "$cache.partial" "$cache"
fi
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/tmp/debs"
cp "${debs[@]}" "$root/tmp/debs/"

in_root() {  # in_root SECONDS COMMAND...: as root inside the root, bounded
  local seconds=$1
  shift
  timeout "$seconds" chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
}
step "apt-get install the two packages, no recommends"
in_root 600 apt-get update >> "$log" 2>&1 || fail "apt-get update failed in the root (see $log)"
before=$(in_root 60 dpkg-query -W -f '.\n' | wc -l)
in_root 1800 env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  /tmp/debs/"$(basename "${debs[0]}")" /tmp/debs/"$(basename "${debs[1]}")" >> "$log" 2>&1 ||
  fail "the packages did not install with their declared dependencies (see $log)"
after=$(in_root 60 dpkg-query -W -f '.\n' | wc -l)
echo "$((after - before)) packages installed beside minbase's $before" | tee -a "$log"

in_root 60 useradd --create-home tester
# As the user would: a login's HOME, nothing of the build tree on any path.
as_user() {
  local seconds=$1
  shift
  timeout "$seconds" chroot --userspec=tester:tester "$root" env -i PATH=/usr/bin:/bin HOME=/home/tester \
    LANG=C.UTF-8 TRAINBENCH_DISABLE_NVML=1 "$@"
}
check() {  # check SECONDS EXPECTED_CODES COMMAND...: runs it, logs it, fails on another code
  local seconds=$1 codes=$2
  shift 2
  step "$*"
  local code=0
  as_user "$seconds" "$@" >> "$log" 2>&1 || code=$?
  [[ ",$codes," == *",$code,"* ]] || fail "'$*' exited $code (expected $codes; see $log)"
  echo "exit $code" | tee -a "$log"
}
check 60 0 trainbench --version
check 60 0 trainbench images
# No NVIDIA driver in the root: 3 is compat's "checked, and no".
check 120 0,3 trainbench compat --all
check 600 0 trainbench run --model tiny --steps 5 --run-dir /home/tester/tiny-run --json
grep -q '"status": *"completed"' "$root/home/tester/tiny-run/summary.json" ||
  fail "the tiny run did not complete: $(cat "$root/home/tester/tiny-run/summary.json")"
cp "$root/home/tester/tiny-run/summary.json" "$results/tiny-run-summary.json"
check 120 0 env QT_QPA_PLATFORM=offscreen trainbench-studio --page image --screenshot /home/tester/image-page.png
cp "$root/home/tester/image-page.png" "$results/image-page.png"
[[ $(stat -c %s "$results/image-page.png") -gt 10000 ]] || fail "the screenshot is nearly empty: $results/image-page.png"

echo "check-install.sh: both packages installed into a clean bookworm root with only their" \
  "dependencies; the CLI ran and the Studio drew the Image page ($results/image-page.png)" \
  "in $((SECONDS - started)) s" | tee -a "$log"
