#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The arm64 build of the CLI, made on an amd64 Debian 12 host: users check
# their aarch64 hosts with `trainbench`, and the image family is multi-arch.
# It cross-compiles the headless tree (core and CLI, no Qt) with Debian's
# cross toolchain against an arm64 Debian root, runs the core libraries'
# tests, `trainbench --version` and `trainbench compat --all --arch arm64`
# under qemu-user, and builds the arm64 `trainbench` package with CPack.
#
# Why a root of its own rather than `dpkg --add-architecture arm64` on the
# host: libtorch-dev is not Multi-Arch (it depends on python3-dev), so apt
# would remove the host's libtorch-dev, python3 and python3-torch to install
# the arm64 one (`apt-get -s install libtorch-dev:arm64` says so). The root
# comes from debootstrap (minbase, bookworm, arm64; its second stage runs
# under qemu-user-static through binfmt_misc) and gets the arm64 -dev
# packages the headless build needs with apt inside it. It is the compiler's
# sysroot (cmake/toolchains/aarch64-linux-gnu.cmake) and qemu's library root.
#
# It needs root (debootstrap, chroot, mount, binfmt_misc), Debian's mirror
# and, the first time, the arm64 root and a full compile, so it runs on
# demand, not in CI (docs/PACKAGING.md has the last run). Caches, so that a second run only
# pays for what changed: the debootstrap root as a tarball like
# check-install.sh's (TB_ARM64_ROOT_CACHE, default
# ~/.cache/trainbench/bookworm-arm64-minbase.tar), the root with its
# packages as a tarball named after the package list
# (bookworm-arm64-sysroot-KEY.tar beside it), and the unpacked root itself
# beside the build (BUILD_DIR-sysroot), which the build tree refers to.
#
# Another build may share the machine: every compile runs under nice -n 19
# and at most two at a time (TB_CROSS_JOBS, 1 or 2), as do the tests.
# Results (test counts, the version line, the package) go to stdout, every
# step's output to BUILD_DIR/cross-arm64.log.
# Usage: sudo packaging/cross-arm64.sh [BUILD_DIR]     (default build/arm64)
set -euo pipefail
source_root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "cross-arm64.sh: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || fail "run it as root: apt-get, debootstrap, chroot, mount and binfmt_misc need it"
build=${1:-$source_root/build/arm64}
mkdir -p "$build"
build=$(cd "$build" && pwd)
sysroot=$build-sysroot
mirror=${TB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache_dir=${XDG_CACHE_HOME:-$HOME/.cache}/trainbench
minbase_cache=${TB_ARM64_ROOT_CACHE:-$cache_dir/bookworm-arm64-minbase.tar}
jobs=${TB_CROSS_JOBS:-2}
[[ $jobs == 1 || $jobs == 2 ]] || fail "TB_CROSS_JOBS is 1 or 2 (the machine is shared), not $jobs"
log=$build/cross-arm64.log
: > "$log"
started=$SECONDS
step_started=$SECONDS
declare -a timings=()
step() {  # step TEXT: closes the previous step's timing, opens this one
  if [[ -n ${current_step:-} ]]; then
    timings+=("$(printf '%5d s  %s' $((SECONDS - step_started)) "$current_step")")
  fi
  current_step=$*
  step_started=$SECONDS
  echo "== $*" | tee -a "$log"
}
# Runs a command with its output in the log; on failure shows the log's end.
logged() {
  "$@" >> "$log" 2>&1 || {
    local code=$?
    tail -n 40 "$log" >&2
    fail "'$*' exited $code (all of it in $log)"
  }
}

# cpu_now sets cpu: the CPU seconds (user and system) of every child waited
# for so far, so that the build's and the tests' cost shows apart from what a
# shared machine's load adds to the wall time. `times` counts this shell's
# children, so it runs here, not in a $(...) subshell.
cpu_file=$build/.cpu-times
cpu_now() {
  times > "$cpu_file"
  cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] }
                       printf "%d", t }' "$cpu_file")
}

mounted=()
umount_root() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    if mountpoint -q "${mounted[i]}" 2> /dev/null; then umount -l "${mounted[i]}" || true; fi
  done
  mounted=()
}
mount_root() {  # what apt, dpkg and dpkg-shlibdeps expect in a root
  mount -t proc proc "$sysroot/proc" && mounted+=("$sysroot/proc")
  mount -t sysfs sys "$sysroot/sys" && mounted+=("$sysroot/sys")
  mount --bind /dev "$sysroot/dev" && mounted+=("$sysroot/dev")
  mount --bind /dev/pts "$sysroot/dev/pts" && mounted+=("$sysroot/dev/pts")
}
trap umount_root EXIT
# Only with nothing mounted inside: rm must never reach the host's /dev.
remove_root() {
  if grep -q " $1/" /proc/mounts; then fail "$1 still has mounts; not removing it"; fi
  rm -rf "$1"
}
in_root() {  # in_root SECONDS COMMAND...: as root inside the arm64 root, bounded, low priority
  local seconds=$1
  shift
  timeout "$seconds" nice -n 19 chroot "$sysroot" \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

step "host packages: the cross toolchain, qemu-user, debootstrap, the build's own tools"
host_packages=(
  g++-aarch64-linux-gnu
  # arm64 programs on this host: debootstrap's second stage, apt and
  # dpkg-shlibdeps in the root, the tests (binfmt-support registers qemu)
  qemu-user-static binfmt-support
  debootstrap
  # what the build runs on the host: protoc (protobuf-compiler, the same
  # 3.21 as the root's libprotobuf), help2man, and CPack's tools
  cmake ninja-build pkg-config protobuf-compiler help2man dpkg-dev file
)
export DEBIAN_FRONTEND=noninteractive
logged apt-get update
missing=()
for p in "${host_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing ${missing[*]}" | tee -a "$log"
  logged apt-get install -y --no-install-recommends "${missing[@]}"
fi
# binfmt_misc runs an arm64 ELF through qemu-aarch64-static wherever it is
# started (chroot, a test's child): a container may not have it mounted yet.
if [[ ! -e /proc/sys/fs/binfmt_misc/register ]]; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
    fail "cannot mount binfmt_misc (a container needs --privileged for arm64 programs to run)"
fi
if ! grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2> /dev/null; then
  logged update-binfmts --enable qemu-aarch64
fi

# The arm64 packages: install-deps.sh's list for the headless preset (no Qt,
# no GUI, no packaging checks, no test registry), plus the core tests'.
root_packages=(
  # core
  nlohmann-json3-dev libcli11-dev libcurl4-openssl-dev libyaml-cpp-dev
  # training engine: LibTorch with c10d's gloo, OpenBLAS, oneDNN (whose CMake
  # package needs OpenCL). No libsleef-dev: the engine's wide kernels are
  # x86-64 only, so the arm64 build carries the portable ones
  libtorch-dev libgloo-dev libopenblas0-pthread libdnnl-dev ocl-icd-opencl-dev
  # TensorBoard event files; the tests write theirs with python3-protobuf
  # and protoc (arm64 here, as everything a test starts)
  libprotobuf-dev protobuf-compiler python3-protobuf
  # the core tests
  libgtest-dev libgmock-dev
  # the package's Depends: CPack's dpkg-shlibdeps runs here, where the arm64
  # libraries' packages and their shlibs and symbols files are
  dpkg-dev
)
key=$(printf '%s\n' "${root_packages[@]}" | sort | sha256sum | cut -c1-12)
stamp="bookworm arm64 $key: ${root_packages[*]}"
sysroot_cache=$cache_dir/bookworm-arm64-sysroot-$key.tar

if [[ -f $sysroot/etc/trainbench-sysroot ]] && [[ $(cat "$sysroot/etc/trainbench-sysroot") == "$stamp" ]]; then
  step "arm64 root: $sysroot (its packages are current)"
elif [[ -f $sysroot_cache ]]; then
  step "arm64 root from $sysroot_cache"
  remove_root "$sysroot"
  mkdir -p "$sysroot"
  tar -xf "$sysroot_cache" -C "$sysroot"
else
  remove_root "$sysroot"
  mkdir -p "$sysroot"
  if [[ -f $minbase_cache ]]; then
    step "arm64 minbase root from $minbase_cache"
    tar -xf "$minbase_cache" -C "$sysroot"
  else
    step "debootstrap --arch=arm64 --variant=minbase bookworm from $mirror"
    logged timeout 3600 nice -n 19 debootstrap --arch=arm64 --variant=minbase bookworm "$sysroot" "$mirror"
    mkdir -p "$(dirname "$minbase_cache")"
    tar -cf "$minbase_cache.partial" -C "$sysroot" . && mv "$minbase_cache.partial" "$minbase_cache"
  fi
  step "apt-get install the arm64 -dev packages in the root (under qemu)"
  mount_root
  cp /etc/resolv.conf "$sysroot/etc/resolv.conf"
  logged in_root 900 apt-get update
  before=$(in_root 120 dpkg-query -W -f '.\n' | wc -l)
  logged in_root 5400 apt-get install -y --no-install-recommends "${root_packages[@]}"
  after=$(in_root 120 dpkg-query -W -f '.\n' | wc -l)
  logged in_root 300 apt-get clean
  umount_root
  echo "$((after - before)) packages installed beside minbase's $before" | tee -a "$log"
  # Absolute links (/etc/alternatives' libblas.so.3, the -dev packages'
  # libfoo.so) would point into the host once the root is a sysroot, for
  # the linker and for qemu alike: made relative, they stay inside it.
  while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    ln -sfn "$(realpath -m -s --relative-to="$(dirname "$link")" "$sysroot$target")" "$link"
  done < <(find "$sysroot" -xdev -type l -lname '/*' -print0)
  echo "$stamp" > "$sysroot/etc/trainbench-sysroot"
  rm -f "$cache_dir"/bookworm-arm64-sysroot-*.tar
  tar -cf "$sysroot_cache.partial" -C "$sysroot" . && mv "$sysroot_cache.partial" "$sysroot_cache"
fi
# shellcheck disable=SC2016  # dpkg-query's own ${Version}, not the shell's
echo "root: $(du -sh "$sysroot" | cut -f1), $(in_root 120 dpkg-query -W -f '.\n' | wc -l) packages," \
  "libtorch $(in_root 120 dpkg-query -W -f '${Version}' libtorch-dev)" | tee -a "$log"

step "configure (toolchain cmake/toolchains/aarch64-linux-gnu.cmake, headless, tests on)"
# The headless preset's choices (RelWithDebInfo, no GUI, tests), cross:
# no NCCL (no CUDA toolkit for arm64 here, whatever the environment says);
# the man pages run `trainbench --help` under the toolchain's qemu.
logged cmake -S "$source_root" -B "$build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$source_root/cmake/toolchains/aarch64-linux-gnu.cmake" \
  -DCMAKE_SYSROOT="$sysroot" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTB_BUILD_GUI=OFF -DTB_BUILD_TESTS=ON -DTB_BUILD_PACKAGING=ON -DTB_WITH_NCCL=OFF
grep -E "LibTorch|oneDNN|SLEEF" "$log" | sed 's/^/  /' || true

step "build trainbench, its man page and the core tests (nice -n 19, -j$jobs)"
# Only these targets: the engine's own tests and the integration tests are
# not run here, and compiling them would double the time.
cpu_now
cpu_before=$cpu
wall_before=$SECONDS
logged nice -n 19 cmake --build "$build" -j "$jobs" --target trainbench tb_man_pages tb_tests_core
cpu_now
build_cost="$((SECONDS - wall_before)) s wall, $((cpu - cpu_before)) s CPU"
echo "built in $build_cost" | tee -a "$log"
file "$build/bin/trainbench" | tee -a "$log"
file "$build/bin/trainbench" | grep -q "ARM aarch64" || fail "$build/bin/trainbench is not an arm64 program"

step "core tests under qemu-user (ctest -L '^core$', -j$jobs)"
# CMAKE_CROSSCOMPILING_EMULATOR puts qemu in front of every test; a failed
# test does not stop the package, but the script's exit status says so.
# Except these five, which fail under qemu-user whatever the code does:
# glibc's posix_spawn starts the child with clone(CLONE_VM | CLONE_VFORK),
# which qemu-user (7.2, bookworm's) runs as a plain fork, so an exec that
# fails is not reported to the parent; the child exits 127 instead and the
# spawn "succeeds" (a C program calling posix_spawnp on a missing name shows
# the same: ENOENT on amd64, 0 and exit 127 under qemu-aarch64-static).
# Each checks that a program that cannot start is reported as such.
qemu_spawn_tests=(
  Subprocess.MissingProgramIsNotFoundAndNamed
  WatchedProcess.AProgramThatCannotStartIsAnErrorNamingIt
  ProcessGroup.AMemberThatCannotStartIsAnErrorAndStopsTheStartedOnes
  HostDetection.MissingNvidiaSmiFallsBackToTheProcFile
  HostDetection.NvidiaSmiMissingFromPathSaysSo
)
tests_ok=1
cpu_now
cpu_before=$cpu
wall_before=$SECONDS
(cd "$build" && nice -n 19 ctest -L '^core$' -j "$jobs" --output-on-failure --timeout 900) \
  > "$build/ctest-core.log" 2>&1 || tests_ok=0
cpu_now
tests_cost="$((SECONDS - wall_before)) s wall, $((cpu - cpu_before)) s CPU"
cat "$build/ctest-core.log" >> "$log"
tests_summary=$(grep -E "tests passed, [0-9]+ tests? failed out of" "$build/ctest-core.log" || echo "no ctest summary")
tests_time=$(grep -E "^Total Test time" "$build/ctest-core.log" || true)
echo "$tests_summary; $tests_time ($tests_cost)" | tee -a "$log"
mapfile -t failed < <(sed -n '/The following tests FAILED/,$s/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' \
  "$build/ctest-core.log")
unexpected=()
for test in "${failed[@]}"; do
  [[ " ${qemu_spawn_tests[*]} " == *" $test "* ]] || unexpected+=("$test")
done
if ((!tests_ok)) && [[ $tests_summary != "no ctest summary" ]] && ((${#unexpected[@]} == 0)); then
  tests_ok=1  # only the known qemu-user ones
fi
tests_failed="failed: ${failed[*]:-none}"
if ((${#failed[@]})); then
  tests_failed="failed: ${#failed[@]}, of which qemu-user's posix_spawn $((${#failed[@]} - ${#unexpected[@]}))"
  tests_failed+=", others: ${unexpected[*]:-none}"
fi
echo "$tests_failed" | tee -a "$log"

emulator=(env QEMU_LD_PREFIX="$sysroot" qemu-aarch64-static)
step "trainbench --version under qemu"
version=$("${emulator[@]}" "$build/bin/trainbench" --version 2>&1) || fail "trainbench --version failed: $version"
echo "$version" | tee -a "$log"
step "trainbench compat --all --arch arm64 under qemu"
# No NVIDIA driver here: 3 is compat's "checked, and no".
compat_code=0
"${emulator[@]}" "$build/bin/trainbench" compat --all --arch arm64 > "$build/compat-arm64.txt" 2>&1 || compat_code=$?
cat "$build/compat-arm64.txt" >> "$log"
head -n 12 "$build/compat-arm64.txt"
echo "exit $compat_code" | tee -a "$log"
[[ $compat_code == 0 || $compat_code == 3 ]] || fail "trainbench compat exited $compat_code (see $build/compat-arm64.txt)"

step "the arm64 package (CPack, dpkg-shlibdeps in the root)"
# CPack asks dpkg-shlibdeps for the Depends line. The host's knows only
# amd64 libraries; this one (first on PATH) runs the root's own, arm64
# under qemu, in the root, on a copy of CPack's staging folder.
tools=$build/cross-tools
mkdir -p "$tools"
cat > "$tools/dpkg-shlibdeps" << EOF
#!/bin/bash
# Written by packaging/cross-arm64.sh: CPack's dpkg-shlibdeps, run in the arm64 root.
set -euo pipefail
run() {
  chroot "$sysroot" env -i PATH=/usr/bin:/bin LC_ALL=C DEB_HOST_ARCH=arm64 DEB_BUILD_ARCH=arm64 \\
    sh -c 'cd /tmp/tb-shlibdeps 2> /dev/null || cd /; exec dpkg-shlibdeps "\$@"' sh "\$@"
}
rm -rf "$sysroot/tmp/tb-shlibdeps"
# Only CPack's staging folder (it holds debian/control and DEBIAN/ then) is
# copied; --version and --help come from wherever cpack runs.
if [[ -f debian/control && -d DEBIAN ]]; then
  mkdir -p "$sysroot/tmp/tb-shlibdeps"
  cp -a . "$sysroot/tmp/tb-shlibdeps/"
fi
run "\$@"
EOF
chmod +x "$tools/dpkg-shlibdeps"
mount_root
mapfile -t debs < <(PATH="$tools:$PATH" "$source_root/packaging/make-debs.sh" "$build" "$build/debs")
umount_root
rm -rf "$sysroot/tmp/tb-shlibdeps"
[[ ${#debs[@]} -eq 1 ]] || fail "expected the one trainbench package, got: ${debs[*]}"
deb=${debs[0]}
dpkg-deb --info "$deb" | tee -a "$log"
[[ $(dpkg-deb -f "$deb" Architecture) == arm64 ]] || fail "$deb is not Architecture: arm64"
dpkg-deb -f "$deb" Depends | grep -q libtorch || fail "$deb does not depend on LibTorch's package"
dpkg-deb -c "$deb" | awk '{print $6}' | grep -E 'bin/trainbench$|man1/trainbench.1.gz$' | tee -a "$log"
lintian_result="lintian not installed"
if command -v lintian > /dev/null; then
  lintian_code=0
  lintian --allow-root --fail-on error,warning "$deb" > "$build/lintian-arm64.txt" 2>&1 || lintian_code=$?
  lintian_result="lintian --fail-on error,warning: exit $lintian_code"
  # grep -c exits 1 on a count of 0 (a clean package), which is no failure.
  lintian_result+=", $(grep -cE '^[EWIPXCO]: ' "$build/lintian-arm64.txt" || true) tags"
  cat "$build/lintian-arm64.txt" >> "$log"
fi
step "done"

echo
echo "cross-arm64.sh results ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, -j$jobs under nice -n 19)"
echo "  build (trainbench, its man page, the core tests): $build_cost"
echo "  core tests under qemu: $tests_summary; $tests_time ($tests_cost)"
echo "    $tests_failed"
echo "  trainbench --version: $(echo "$version" | tr '\n' ' ')"
echo "  trainbench compat --all --arch arm64: exit $compat_code"
echo "  package: $(basename "$deb"), $(stat -c %s "$deb") bytes ($(du -h "$deb" | cut -f1)), in $build/debs"
echo "  $lintian_result"
echo "  steps:"
printf '    %s\n' "${timings[@]}"
echo "  total: $((SECONDS - started)) s"
((tests_ok)) || fail "core tests failed under qemu beyond qemu-user's posix_spawn (see $build/ctest-core.log)"
