// Parsing of the run's enumerations and the default thread count. Threads
// default to physical cores because a second hyper-thread on the same core
// competes for the same vector units and slows dense matrix products.
#include "tb/engine/run_config.hpp"

#include <sched.h>

#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "tb/common/text.hpp"

namespace tb::engine {
namespace {

std::optional<long long> readNumber(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string text;
  if (!in || !std::getline(in, text)) return std::nullopt;
  return parseUnsigned(trim(text));
}

}  // namespace

DataChoice parseDataChoice(std::string_view text) {
  if (text == "random") return {DataKind::Random, {}};
  if (text == "synthetic") return {DataKind::Synthetic, {}};
  return {DataKind::TextFile, std::filesystem::path(text)};
}

Expected<Device> parseDevice(std::string_view text) {
  if (text == "cpu") return Device::Cpu;
  if (text == "cuda") return Device::Cuda;
  return makeError(ErrorKind::BadInput,
                   "unknown device '" + std::string(text) + "' (expected cpu or cuda)");
}

std::string_view toString(Device device) { return device == Device::Cuda ? "cuda" : "cpu"; }

int physicalCoreCount() {
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
  if (!cores.empty()) return static_cast<int>(cores.size());
  const unsigned logical = std::thread::hardware_concurrency();
  return logical == 0 ? 1 : static_cast<int>(logical);
}

}  // namespace tb::engine
