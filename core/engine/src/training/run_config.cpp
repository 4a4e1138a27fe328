// Parsing of the run's enumerations. The recompute spellings are those of
// `trainbench memory --recompute` (core/memory parses them), plus auto.
#include "tb/engine/run_config.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iterator>
#include <string>

#include "training/recompute_choice.hpp"
#include "tb/memory/memory_options.hpp"

namespace tb::engine {

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

Expected<RecomputePolicy> parseRecomputePolicy(std::string_view text) {
  auto policy = memory::parseEngineRecompute(text);
  if (!policy) return policy.error();
  if (!policy->has_value()) return RecomputePolicy{RecomputeMode::Auto, 0};
  return fromMemoryPolicy(**policy);
}

std::uint8_t selectiveModules(const RecomputePolicy& policy) {
  return memory::selectiveModules(toMemoryPolicy(policy));
}

std::string toString(const RecomputePolicy& policy) {
  if (policy.mode == RecomputeMode::Auto) return "auto";
  return memory::toString(toMemoryPolicy(policy));
}

RuntimeOptions stockRuntime() {
  return {.threads = false,
          .matmul = false,
          .lazySync = false,
          .flatGradients = false,
          .gqaInPlace = false,
          .keepMemory = false};
}
RuntimeOptions tunedRuntime() { return {}; }

namespace {

struct RuntimeSwitch {
  std::string_view name;
  bool RuntimeOptions::*field;
};

constexpr RuntimeSwitch kRuntimeSwitches[] = {
    {"threads", &RuntimeOptions::threads}, {"matmul", &RuntimeOptions::matmul},
    {"sync", &RuntimeOptions::lazySync},   {"flat-grads", &RuntimeOptions::flatGradients},
    {"gqa", &RuntimeOptions::gqaInPlace},  {"alloc", &RuntimeOptions::keepMemory},
};

}  // namespace

Expected<RuntimeOptions> parseRuntime(std::string_view text) {
  const auto bad = [&text](const std::string& why) {
    return makeError(ErrorKind::BadInput, "--runtime '" + std::string(text) + "': " + why +
                                              " (expected stock or tuned, then optional "
                                              ",+SWITCH or ,-SWITCH with SWITCH one of threads, "
                                              "matmul, sync, flat-grads, gqa, alloc)");
  };
  const std::size_t comma = text.find(',');
  const std::string_view base = text.substr(0, comma);
  RuntimeOptions options;
  if (base == "stock") {
    options = stockRuntime();
  } else if (base == "tuned") {
    options = tunedRuntime();
  } else {
    return bad("unknown runtime '" + std::string(base) + "'");
  }
  std::string_view rest = comma == std::string_view::npos ? "" : text.substr(comma + 1);
  if (comma != std::string_view::npos && rest.empty()) return bad("nothing after the comma");
  while (!rest.empty()) {
    const std::size_t next = rest.find(',');
    const std::string_view item = rest.substr(0, next);
    rest = next == std::string_view::npos ? "" : rest.substr(next + 1);
    if (item.size() < 2 || (item[0] != '+' && item[0] != '-')) {
      return bad("'" + std::string(item) + "' is not +SWITCH or -SWITCH");
    }
    const auto* found =
        std::find_if(std::begin(kRuntimeSwitches), std::end(kRuntimeSwitches),
                     [name = item.substr(1)](const RuntimeSwitch& s) { return s.name == name; });
    if (found == std::end(kRuntimeSwitches)) {
      return bad("unknown switch '" + std::string(item.substr(1)) + "'");
    }
    options.*(found->field) = item[0] == '+';
  }
  return options;
}

std::string toString(const RuntimeOptions& options) {
  // Name the base that needs fewer changes: "tuned,-matmul" rather than "stock,+threads,…".
  int on = 0;
  for (const auto& s : kRuntimeSwitches) on += options.*(s.field) ? 1 : 0;
  const bool fromTuned = 2 * on >= static_cast<int>(std::size(kRuntimeSwitches));
  std::string text = fromTuned ? "tuned" : "stock";
  for (const auto& s : kRuntimeSwitches) {
    if (options.*(s.field) != fromTuned) {
      text += std::string(",") + (fromTuned ? "-" : "+") + std::string(s.name);
    }
  }
  return text;
}

std::string_view toString(Device device) { return device == Device::Cuda ? "cuda" : "cpu"; }

}  // namespace tb::engine
