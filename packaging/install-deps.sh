#!/usr/bin/env bash
# Installs every Debian package TrainBench needs to build, test and run.
# Idempotent: packages already present are left alone, so a second run only
# pays for `apt-get update`. Used by scripts/start.sh, scripts/test.sh and CI.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config
  # core
  nlohmann-json3-dev libcli11-dev libcurl4-openssl-dev libyaml-cpp-dev
  # training engine: LibTorch (CPU) with the c10d headers it includes, and a
  # threaded OpenBLAS (without it LibTorch falls back to the reference BLAS)
  libtorch-dev libgloo-dev libopenblas0-pthread
  # the tuned runtime's matrix products: oneDNN called directly on the tensors'
  # memory (LibTorch's own mkldnn_linear copies into oneDNN's layout each call);
  # Debian's oneDNN is built with its OpenCL GPU runtime, so its CMake package
  # needs the OpenCL headers and loader, which it only recommends
  libdnnl-dev ocl-icd-opencl-dev
  # TensorBoard event files (training-log import) are protobuf messages; the
  # tests write their own with Python's protobuf, independently of the reader
  libprotobuf-dev protobuf-compiler python3-protobuf
  # the fused kernels' AVX2 and AVX-512 builds: ATen's vector types call SLEEF
  # for exp and friends at those widths
  libsleef-dev
  # GUI
  qt6-base-dev qt6-base-dev-tools libqt6svg6 qt6-svg-dev libqcustomplot-dev libgl-dev
  fonts-dejavu-core
  # registry credentials live in the system keychain, never in settings files
  qtkeychain-qt6-dev
  # tests: GoogleTest, a real OCI registry on loopback for the registry client,
  # and openssl's s_server with a self-signed certificate for the TLS refusal
  libgtest-dev libgmock-dev docker-registry openssl
  # the window layout test in a real X server (Qt's xcb platform on Xvfb)
  xvfb qt6-qpa-plugins
  # packaging: man pages from --help, the icon's PNG sizes, and the checks
  # CI runs on the .deb packages, the desktop entry and the AppStream data
  help2man librsvg2-bin lintian desktop-file-utils appstream
  # numerical parity and the eager benchmark compare the engine with PyTorch
  # itself (Debian's, the same 1.13 as libtorch-dev); its torchrun launches
  # the data-parallel tests' workers
  python3-torch
  # two "nodes" of a data-parallel test: network namespaces joined by veth
  iproute2
  # the cluster ablation's test: a one-host Slurm with its own munged
  slurm-wlm munge
  # the parsers' libFuzzer targets (the fuzz preset, tests/fuzz/run-fuzz.sh):
  # clang with its fuzzer and sanitizer runtimes
  clang libclang-rt-14-dev
)

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  sudo_cmd=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all ${#packages[@]} packages already installed"
fi
