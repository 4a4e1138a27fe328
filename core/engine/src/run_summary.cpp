// The summary's JSON shape is part of the CLI contract (`trainbench run
// --json`, summary.json): field names are snake_case and stable.
#include "tb/engine/run_summary.hpp"

#include <nlohmann/json.hpp>

#include "summary_json.hpp"

namespace tb::engine {

std::string_view toString(RunStatus status) {
  switch (status) {
    case RunStatus::Completed: return "completed";
    case RunStatus::Interrupted: return "interrupted";
    case RunStatus::Oom: return "oom";
    case RunStatus::Failed: return "failed";
  }
  return "failed";
}

nlohmann::json summaryToJsonObject(const RunSummary& summary) {
  nlohmann::json json{
      {"status", toString(summary.status)},
      {"model", summary.model},
      {"steps", summary.steps},
      {"first_step", summary.firstStep},
      {"params", summary.params},
      {"tokens_per_s", summary.tokensPerSecond},
      {"step_time_s", summary.stepTimeSeconds},
      {"peak_bytes", summary.peakBytes},
      // null, not 0, when no step ran (an out-of-memory error while setting up).
      {"loss_first", summary.losses.empty() ? nlohmann::json() : nlohmann::json(summary.lossFirst)},
      {"loss_last", summary.losses.empty() ? nlohmann::json() : nlohmann::json(summary.lossLast)},
      {"mfu", summary.mfu},
      {"matmul_gflops", summary.matmulGflops},
      {"flops_per_token", summary.flopsPerToken},
      {"threads", summary.threads},
      {"device", summary.device},
      {"recompute", summary.recompute},
      {"runtime", summary.runtime},
      {"compile", summary.compile},
      {"matmul_path", summary.matmulPath},
      {"run_dir", summary.runDir.string()},
  };
  if (summary.heldOutLoss) json["loss_heldout"] = *summary.heldOutLoss;
  if (!summary.message.empty()) json["message"] = summary.message;
  return json;
}

std::string toJson(const RunSummary& summary) { return summaryToJsonObject(summary).dump(); }

}  // namespace tb::engine
