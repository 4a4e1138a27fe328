// detectHost owns only the order of the probes and the notes: each probe
// lives in its own file (nvml_probe.cpp, nvidia_smi.cpp, proc_driver.cpp)
// and answers or explains why not. A machine without a driver is a normal
// answer, so nothing here fails.
#include "tb/compat/host_detection.hpp"

#include <sys/utsname.h>

#include <cstdlib>

#include "host_probes.hpp"

namespace tb::compat {
namespace {

std::string environmentValue(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

void adopt(detail::ProbeResult&& probe, DetectionSource source, HostInfo& host) {
  host.driver = std::move(probe.driver);
  host.gpuNames = std::move(probe.gpuNames);
  host.cudaDriverVersion = probe.cudaDriverVersion;
  host.source = source;
  for (auto& note : probe.notes) host.notes.push_back(std::move(note));
}

std::string_view sourceForPeople(DetectionSource source) {
  switch (source) {
    case DetectionSource::Nvml: return "NVML";
    case DetectionSource::NvidiaSmi: return "nvidia-smi";
    case DetectionSource::ProcFs: return "/proc/driver/nvidia/version";
    case DetectionSource::None: break;
  }
  return "nothing";
}

}  // namespace

std::string_view toString(DetectionSource source) noexcept {
  switch (source) {
    case DetectionSource::Nvml: return "nvml";
    case DetectionSource::NvidiaSmi: return "nvidia-smi";
    case DetectionSource::ProcFs: return "procfs";
    case DetectionSource::None: return "none";
  }
  return "none";
}

std::string HostInfo::summary() const {
  if (!driver) return "no NVIDIA driver on this machine";
  return driver->text() + " via " + std::string(sourceForPeople(source));
}

std::optional<catalog::CpuArch> detectCpuArch(std::string* machine) {
  utsname system{};
  if (::uname(&system) != 0) return std::nullopt;
  if (machine != nullptr) *machine = system.machine;
  return catalog::parseCpuArch(system.machine);
}

DetectOptions detectOptionsFromEnvironment() {
  DetectOptions options;
  if (auto smi = environmentValue("TRAINBENCH_NVIDIA_SMI"); !smi.empty()) {
    options.nvidiaSmi = std::move(smi);
  }
  if (auto proc = environmentValue("TRAINBENCH_PROC_DRIVER_VERSION"); !proc.empty()) {
    options.procVersionFile = std::move(proc);
  }
  const std::string disable = environmentValue("TRAINBENCH_DISABLE_NVML");
  if (!disable.empty() && disable != "0") options.useNvml = false;
  return options;
}

HostInfo detectHost(const DetectOptions& options) {
  HostInfo host;
  host.arch = detectCpuArch(&host.machine);
  if (!host.arch) {
    host.notes.push_back("CPU architecture '" + host.machine + "' is neither amd64 nor arm64");
  }

  if (options.useNvml) {
    auto nvml = detail::probeNvml(options.nvmlLibrary);
    if (nvml) {
      adopt(std::move(*nvml), DetectionSource::Nvml, host);
      return host;
    }
    host.notes.push_back(nvml.error().message);
  } else {
    host.notes.push_back("NVML: not tried (disabled)");
  }

  auto smi = detail::probeNvidiaSmi(options.nvidiaSmi, options.nvidiaSmiTimeoutMs);
  if (smi) {
    adopt(std::move(*smi), DetectionSource::NvidiaSmi, host);
    return host;
  }
  host.notes.push_back(smi.error().message);

  auto proc = detail::probeProcDriverFile(options.procVersionFile);
  if (proc) {
    adopt(std::move(*proc), DetectionSource::ProcFs, host);
    return host;
  }
  host.notes.push_back(proc.error().message);
  return host;
}

}  // namespace tb::compat
