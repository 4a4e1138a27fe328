// Physical cores are counted as distinct (physical id, core id) pairs, the
// way lscpu does: logical CPUs would count SMT siblings twice. On the live
// machine the count is the one the engine sizes its threads by
// (tb::physicalCoreCount, sysfs and the affinity mask); /proc/cpuinfo's pairs
// stand in where sysfs has no topology.
#include "tb/bench/host_cpu.hpp"

#include <algorithm>
#include <set>
#include <thread>
#include <utility>

#include "tb/common/atomic_file.hpp"
#include "tb/common/host_cores.hpp"
#include "tb/common/text.hpp"

namespace tb::bench {

HostCpu parseCpuInfo(std::string_view text) {
  HostCpu cpu;
  std::set<std::pair<std::string, std::string>> cores;
  std::string physicalId;
  std::string coreId;
  int logical = 0;
  std::string fallbackModel;
  const auto endProcessor = [&] {
    if (!coreId.empty()) cores.emplace(physicalId, coreId);
    physicalId.clear();
    coreId.clear();
  };
  for (const std::string_view rawLine : split(text, '\n')) {
    const std::size_t colon = rawLine.find(':');
    if (colon == std::string_view::npos) {
      if (trim(rawLine).empty()) endProcessor();
      continue;
    }
    const std::string key(trim(rawLine.substr(0, colon)));
    const std::string value(trim(rawLine.substr(colon + 1)));
    if (key == "processor") {
      endProcessor();
      ++logical;
    } else if (key == "model name" && cpu.model.empty()) {
      cpu.model = value;
    } else if ((key == "Hardware" || key == "CPU implementer") && fallbackModel.empty()) {
      fallbackModel = key == "Hardware" ? value : "ARM implementer " + value;
    } else if (key == "physical id") {
      physicalId = value;
    } else if (key == "core id") {
      coreId = value;
    }
  }
  endProcessor();
  if (cpu.model.empty()) cpu.model = fallbackModel;
  cpu.physicalCores = !cores.empty() ? static_cast<int>(cores.size()) : logical;
  return cpu;
}

HostCpu detectHostCpu() {
  HostCpu cpu;
  if (Expected<std::string> text = readFile("/proc/cpuinfo")) cpu = parseCpuInfo(*text);
  if (cpu.model.empty()) cpu.model = "unknown CPU";
  if (const int cores = physicalCoresFromTopology(); cores > 0) cpu.physicalCores = cores;
  if (cpu.physicalCores <= 0) {
    cpu.physicalCores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  }
  return cpu;
}

}  // namespace tb::bench
