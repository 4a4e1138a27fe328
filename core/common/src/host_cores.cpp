#include "tb/common/host_cores.hpp"

#include <sched.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "tb/common/text.hpp"

namespace tb {
namespace {

std::optional<long long> readNumber(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string text;
  if (!in || !std::getline(in, text)) return std::nullopt;
  return parseUnsigned(trim(text));
}

}  // namespace

int physicalCoresFromTopology() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const bool haveMask = sched_getaffinity(0, sizeof(allowed), &allowed) == 0;
  std::set<std::pair<long long, long long>> cores;  // (package, core)
  for (std::size_t cpu = 0; cpu < static_cast<std::size_t>(CPU_SETSIZE); ++cpu) {
    if (haveMask && !CPU_ISSET(cpu, &allowed)) continue;
    const std::filesystem::path topology =
        "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology";
    const auto package = readNumber(topology / "physical_package_id");
    const auto core = readNumber(topology / "core_id");
    if (!package || !core) continue;
    cores.emplace(*package, *core);
  }
  return static_cast<int>(cores.size());
}

int physicalCoreCount() {
  if (const int cores = physicalCoresFromTopology(); cores > 0) return cores;
  const unsigned logical = std::thread::hardware_concurrency();
  return logical == 0 ? 1 : static_cast<int>(logical);
}

}  // namespace tb
