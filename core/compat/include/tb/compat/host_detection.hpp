// What driver, GPUs and CPU this machine has. Tried in order: NVML loaded at
// run time with dlopen (no link-time dependency on the driver), nvidia-smi,
// /proc/driver/nvidia/version. No driver is an answer, not an error.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/catalog/catalog.hpp"
#include "tb/common/expected.hpp"

namespace tb::compat {

/// Where a host fact came from.
enum class DetectionSource { Nvml, NvidiaSmi, ProcFs, None };
[[nodiscard]] std::string_view toString(DetectionSource source) noexcept;

struct HostInfo {
  std::optional<catalog::DriverVersion> driver;  ///< empty: no NVIDIA driver
  std::vector<std::string> gpuNames;             ///< one entry per GPU
  std::optional<int> cudaDriverVersion;          ///< 12080 for CUDA 12.8, when known
  /// Empty when the CPU is neither amd64 nor arm64.
  std::optional<catalog::CpuArch> arch;
  std::string machine;  ///< uname's machine field, "x86_64"
  DetectionSource source = DetectionSource::None;
  std::vector<std::string> notes;  ///< what was tried and why it did not answer

  [[nodiscard]] int gpuCount() const noexcept { return static_cast<int>(gpuNames.size()); }
  /// "no NVIDIA driver on this machine" or "570.124.06 via nvidia-smi".
  [[nodiscard]] std::string summary() const;
};

/// Test seams: where the detectors look. Defaults are the real places.
struct DetectOptions {
  bool useNvml = true;
  std::string nvmlLibrary = "libnvidia-ml.so.1";
  std::string nvidiaSmi = "nvidia-smi";  ///< a name on PATH or a path
  std::string procVersionFile = "/proc/driver/nvidia/version";
  int nvidiaSmiTimeoutMs = 10000;
};

/// The default DetectOptions with these environment variables laid over
/// them, so the CLI and GUI (and their integration tests) can simulate a host:
///   TRAINBENCH_NVIDIA_SMI=PATH           nvidia-smi to run instead of the one on PATH
///   TRAINBENCH_PROC_DRIVER_VERSION=PATH  file to read instead of /proc/driver/nvidia/version
///   TRAINBENCH_DISABLE_NVML=1            skip NVML (any value but empty or "0")
/// Empty variables are ignored.
[[nodiscard]] DetectOptions detectOptionsFromEnvironment();

/// Runs the detectors in order; never fails.
[[nodiscard]] HostInfo detectHost(const DetectOptions& options = {});

/// One line of `nvidia-smi --query-gpu=driver_version,name,count --format=csv,noheader`.
struct SmiGpuRow {
  catalog::DriverVersion driver;
  std::string name;
  int count = 0;
};

/// Parses that output (one line per GPU). Errors name the line at fault.
Expected<std::vector<SmiGpuRow>> parseNvidiaSmiCsv(std::string_view output);

/// Parses /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64
/// Kernel Module  535.104.05  Sat Aug 19 ..." or the open-module variant).
Expected<catalog::DriverVersion> parseProcDriverVersion(std::string_view content);

/// The CPU architecture of this process's machine (uname).
[[nodiscard]] std::optional<catalog::CpuArch> detectCpuArch(std::string* machine = nullptr);

}  // namespace tb::compat
