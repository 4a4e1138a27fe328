// The three driver probes behind detectHost, one file each (nvml_probe.cpp,
// nvidia_smi.cpp, proc_driver.cpp). Each either answers or returns an Error
// whose message is the note detectHost records ("NVML: libnvidia-ml.so.1 not
// found"), so the order of fallbacks lives in one place, host_detection.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tb/catalog/driver_version.hpp"
#include "tb/common/expected.hpp"

namespace tb::compat::detail {

/// What one probe learnt about the driver and the GPUs.
struct ProbeResult {
  catalog::DriverVersion driver;
  std::vector<std::string> gpuNames;
  std::optional<int> cudaDriverVersion;
  std::vector<std::string> notes;  ///< things that did not stop the probe but are worth saying
};

Expected<ProbeResult> probeNvml(const std::string& library);
Expected<ProbeResult> probeNvidiaSmi(const std::string& program, int timeoutMs);
Expected<ProbeResult> probeProcDriverFile(const std::string& path);

}  // namespace tb::compat::detail
