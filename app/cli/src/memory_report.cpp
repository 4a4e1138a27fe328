// Bytes are exact integers in JSON (programs compute with them) and rounded
// binary units in text (people compare them with a card's size).
#include "memory_report.hpp"

#include <array>
#include <cstdio>
#include <ostream>
#include <utility>

namespace tb::cli {

namespace {

std::array<std::pair<const char*, std::uint64_t>, 9> terms(const memory::MemoryBreakdown& b) {
  return {{{"weights", b.weights},
           {"gradients", b.gradients},
           {"optimizer", b.optimizer},
           {"activations", b.activations},
           {"logits", b.logits},
           {"recompute", b.recompute},
           {"workspace", b.workspace},
           {"overhead", b.overhead},
           {"allocator_cache", b.allocatorCache}}};
}

}  // namespace

Json breakdownJson(const memory::MemoryBreakdown& breakdown) {
  Json json = Json::object();
  for (const auto& [name, bytes] : terms(breakdown)) json[name] = bytes;
  return json;
}

Json calibrationJson(const std::optional<memory::Calibration>& calibration) {
  if (!calibration) return nullptr;
  return Json{{"scale", calibration->scale},
              {"offset_bytes", calibration->offsetBytes},
              {"points", calibration->points},
              {"mean_error_before", calibration->meanErrorBefore},
              {"mean_error_after", calibration->meanErrorAfter}};
}

Json jobJson(const memory::PredictionInput& input, const std::string& runtime) {
  const memory::ParallelConfig& p = input.parallel;
  return Json{{"model", input.model.name},
              {"profile", memory::toString(input.profile)},
              {"dtype", memory::toString(p.dtype)},
              {"seq", input.model.seq},
              {"batch", input.model.batch},
              {"dp", p.dp},
              {"tp", p.tp},
              {"pp", p.pp},
              {"cp", p.cp},
              {"zero", p.zero},
              {"sequence_parallel", p.sequenceParallel},
              {"async_tp", p.asyncTp},
              {"float8", input.float8},
              {"framework_version", memory::toString(input.frameworkVersion)},
              {"attention", p.flashAttention ? "flash" : "eager"},
              {"compile", input.compiledStep},
              {"runtime", runtime.empty() ? Json(nullptr) : Json(runtime)}};
}

void printBreakdown(std::ostream& out, const memory::MemoryBreakdown& breakdown) {
  const double total = static_cast<double>(breakdown.total());
  TextTable table({"TERM", "BYTES", "SHARE"});
  for (const auto& [name, bytes] : terms(breakdown)) {
    char share[16];
    std::snprintf(share, sizeof(share), "%.1f%%",
                  total > 0 ? 100.0 * static_cast<double>(bytes) / total : 0.0);
    table.addRow({name, formatBytes(bytes), share});
  }
  table.print(out);
}

}  // namespace tb::cli
