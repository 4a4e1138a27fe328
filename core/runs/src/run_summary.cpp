// loss_first and loss_last are null, not 0, when no step ran (an
// out-of-memory stop while setting up): a reader must not plot a zero loss.
#include "tb/runs/run_summary.hpp"

#include "json_fields.hpp"

namespace tb::runs {

using detail::json;

json toJson(const RunSummary& summary) {
  const auto nullable = [](const std::optional<double>& value) {
    return value ? json(*value) : json();
  };
  json object{
      {"status", toString(summary.state)},
      {"model", summary.model},
      {"steps", summary.steps},
      {"first_step", summary.firstStep},
      {"params", summary.params},
      {"tokens_per_s", summary.tokensPerSecond},
      {"step_time_s", summary.stepTimeSeconds},
      {"peak_bytes", summary.peakBytes},
      {"loss_first", nullable(summary.lossFirst)},
      {"loss_last", nullable(summary.lossLast)},
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
  if (summary.heldOutLoss) object["loss_heldout"] = *summary.heldOutLoss;
  if (!summary.message.empty()) object["message"] = summary.message;
  if (summary.worldSize > 1) {
    object["world_size"] = summary.worldSize;
    object["rank"] = summary.rank;
    json ranks = json::array();
    for (const RankOutcome& rank : summary.ranks) {
      json entry{
          {"rank", rank.rank}, {"status", toString(rank.state)}, {"peak_bytes", rank.peakBytes}};
      if (!rank.message.empty()) entry["message"] = rank.message;
      ranks.push_back(std::move(entry));
    }
    object["ranks"] = std::move(ranks);
  }
  return object;
}

Expected<RunSummary> summaryFromJson(const json& object) {
  using namespace detail;
  if (!object.is_object()) return makeError(ErrorKind::Parse, "summary is not a JSON object");
  const Expected<RunState> state = endStateField(object);
  if (!state) return state.error();
  RunSummary summary;
  summary.state = *state;
  summary.message = textOr(object, "message");
  summary.model = textOr(object, "model");
  summary.steps = integerOr(object, "steps");
  summary.firstStep = integerOr(object, "first_step", 1);
  summary.params = integerOr(object, "params");
  summary.tokensPerSecond = numberOr(object, "tokens_per_s", 0.0);
  summary.stepTimeSeconds = numberOr(object, "step_time_s", 0.0);
  summary.peakBytes = bytesOr(object, "peak_bytes");
  summary.lossFirst = optionalNumber(object, "loss_first");
  summary.lossLast = optionalNumber(object, "loss_last");
  summary.heldOutLoss = optionalNumber(object, "loss_heldout");
  summary.mfu = numberOr(object, "mfu", 0.0);
  summary.matmulGflops = numberOr(object, "matmul_gflops", 0.0);
  summary.flopsPerToken = numberOr(object, "flops_per_token", 0.0);
  summary.threads = static_cast<int>(integerOr(object, "threads"));
  summary.device = textOr(object, "device");
  summary.recompute = textOr(object, "recompute");
  summary.runtime = textOr(object, "runtime");
  summary.compile = flagOr(object, "compile", false);
  summary.matmulPath = textOr(object, "matmul_path");
  summary.runDir = textOr(object, "run_dir");
  summary.worldSize = static_cast<int>(integerOr(object, "world_size", 1));
  summary.rank = static_cast<int>(integerOr(object, "rank"));
  if (const auto found = object.find("ranks"); found != object.end() && found->is_array()) {
    for (const json& entry : *found) {
      if (!entry.is_object())
        return makeError(ErrorKind::Parse, "ranks: an entry is not an object");
      const Expected<RunState> rankState = endStateField(entry);
      if (!rankState) return makeError(ErrorKind::Parse, "ranks: " + rankState.error().message);
      summary.ranks.push_back({static_cast<int>(integerOr(entry, "rank")), *rankState,
                               bytesOr(entry, "peak_bytes"), textOr(entry, "message")});
    }
  }
  return summary;
}

Expected<RunSummary> parseSummaryText(std::string_view text) {
  if (text.empty()) {
    return makeError(ErrorKind::NotFound, "the run ended without writing summary.json");
  }
  const json object = json::parse(text, nullptr, false);
  if (object.is_discarded() || !object.is_object()) {
    return makeError(ErrorKind::Parse, "summary.json is not a JSON object");
  }
  auto summary = summaryFromJson(object);
  if (!summary) return makeError(ErrorKind::Parse, "summary.json: " + summary.error().message);
  return summary;
}

}  // namespace tb::runs
