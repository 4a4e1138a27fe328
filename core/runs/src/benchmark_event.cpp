// Written and read in this one file, so the two sides cannot drift: every
// field a writer puts in is read back by the parser below, and the round-trip
// test holds them to each other.
#include "tb/runs/benchmark_event.hpp"

#include "json_fields.hpp"

namespace tb::runs {
namespace {

using namespace detail;

constexpr std::pair<BenchmarkEventKind, const char*> kNames[] = {
    {BenchmarkEventKind::Plan, "plan"},
    {BenchmarkEventKind::RunStart, "run_start"},
    {BenchmarkEventKind::RunStep, "run_step"},
    {BenchmarkEventKind::RunEnd, "run_end"},
    {BenchmarkEventKind::Summary, "summary"}};

BenchmarkEventKind kindNamed(std::string_view name) {
  for (const auto& [kind, text] : kNames) {
    if (name == text) return kind;
  }
  return BenchmarkEventKind::Other;
}

json refJson(const BenchmarkRunRef& run) {
  return {{"index", run.index},
          {"total", run.total},
          {"label", run.label},
          {"repeat", run.repeat},
          {"run_dir", run.runDir}};
}

Expected<BenchmarkRunRef> parseRef(const json& object) {
  BenchmarkRunRef run;
  const json* index = member(object, "index");
  if (index == nullptr || !index->is_number_integer()) return fieldError("index", "an integer");
  run.index = index->get<std::int64_t>();
  run.total = integerOr(object, "total");
  run.label = textOr(object, "label");
  if (run.label.empty()) return fieldError("label", "a string");
  run.repeat = integerOr(object, "repeat");
  run.runDir = textOr(object, "run_dir");
  return run;
}

}  // namespace

std::string_view toString(BenchmarkEventKind kind) {
  for (const auto& [known, text] : kNames) {
    if (known == kind) return text;
  }
  return "other";
}

std::string toJsonLine(const BenchmarkEvent& event) {
  json object;
  switch (event.kind) {
    case BenchmarkEventKind::Plan: {
      const BenchmarkPlan& plan = event.plan;
      json runs = json::array();
      for (const BenchmarkRunRef& run : plan.runs) runs.push_back(refJson(run));
      object = {{"model", plan.model},
                {"steps", plan.steps},
                {"warmup_steps", plan.warmupSteps},
                {"repeats", plan.repeats},
                {"memory_budget_bytes", plan.memoryBudgetBytes},
                {"budget_from_predictor", plan.budgetFromPredictor},
                {"full_recompute_peak_bytes", plan.fullRecomputePeakBytes},
                {"no_recompute_peak_bytes", plan.noRecomputePeakBytes},
                {"results", plan.resultsFile},
                {"runs", std::move(runs)}};
      break;
    }
    case BenchmarkEventKind::RunStart:
      object = refJson(event.run);
      object["steps"] = event.steps;
      break;
    case BenchmarkEventKind::RunStep:
      object = refJson(event.run);
      object["step"] = event.step;
      object["steps"] = event.steps;
      break;
    case BenchmarkEventKind::RunEnd:
      object = refJson(event.run);
      object["status"] = toString(event.end.state);
      object["message"] = event.end.message;
      object["tokens_per_s"] = event.end.tokensPerSecond;
      object["step_time_s"] = event.end.stepTimeSeconds;
      object["peak_bytes"] = event.end.peakBytes;
      object["wall_s"] = event.end.wallSeconds;
      break;
    case BenchmarkEventKind::Summary:
      object = {{"finished_runs", event.summary.finishedRuns},
                {"failed_runs", event.summary.failedRuns},
                {"stopped", event.summary.stopped},
                {"results", event.summary.resultsFile}};
      break;
    case BenchmarkEventKind::Other: object = json::object(); break;
  }
  object["event"] =
      event.kind == BenchmarkEventKind::Other ? event.name : std::string(toString(event.kind));
  object["elapsed_s"] = event.elapsedSeconds;
  return object.dump(-1, ' ', false, json::error_handler_t::replace);
}

Expected<BenchmarkEvent> parseBenchmarkEventLine(std::string_view line) {
  const json object = json::parse(line, nullptr, false);
  if (object.is_discarded()) return makeError(ErrorKind::Parse, "not valid JSON");
  if (!object.is_object()) return makeError(ErrorKind::Parse, "not a JSON object");
  BenchmarkEvent event;
  event.name = textOr(object, "event");
  if (event.name.empty()) return fieldError("event", "a string");
  event.kind = kindNamed(event.name);
  event.elapsedSeconds = numberOr(object, "elapsed_s", 0.0);
  switch (event.kind) {
    case BenchmarkEventKind::Plan: {
      BenchmarkPlan& plan = event.plan;
      plan.model = textOr(object, "model");
      plan.steps = integerOr(object, "steps");
      plan.warmupSteps = integerOr(object, "warmup_steps");
      plan.repeats = integerOr(object, "repeats");
      plan.memoryBudgetBytes = bytesOr(object, "memory_budget_bytes");
      plan.budgetFromPredictor = flagOr(object, "budget_from_predictor", false);
      plan.fullRecomputePeakBytes = bytesOr(object, "full_recompute_peak_bytes");
      plan.noRecomputePeakBytes = bytesOr(object, "no_recompute_peak_bytes");
      plan.resultsFile = textOr(object, "results");
      const json* runs = member(object, "runs");
      if (runs == nullptr || !runs->is_array()) return fieldError("runs", "an array");
      for (const json& entry : *runs) {
        if (!entry.is_object()) return fieldError("runs", "an array of objects");
        auto run = parseRef(entry);
        if (!run) return run.error();
        plan.runs.push_back(std::move(*run));
      }
      break;
    }
    case BenchmarkEventKind::RunStart:
    case BenchmarkEventKind::RunStep:
    case BenchmarkEventKind::RunEnd: {
      auto run = parseRef(object);
      if (!run) return run.error();
      event.run = std::move(*run);
      event.steps = integerOr(object, "steps");
      event.step = integerOr(object, "step");
      if (event.kind != BenchmarkEventKind::RunEnd) break;
      const Expected<RunState> state = endStateField(object);
      if (!state) return state.error();
      event.end.state = *state;
      event.end.message = textOr(object, "message");
      event.end.tokensPerSecond = numberOr(object, "tokens_per_s", 0.0);
      event.end.stepTimeSeconds = numberOr(object, "step_time_s", 0.0);
      event.end.peakBytes = bytesOr(object, "peak_bytes");
      event.end.wallSeconds = numberOr(object, "wall_s", 0.0);
      break;
    }
    case BenchmarkEventKind::Summary:
      event.summary.finishedRuns = integerOr(object, "finished_runs");
      event.summary.failedRuns = integerOr(object, "failed_runs");
      event.summary.stopped = flagOr(object, "stopped", false);
      event.summary.resultsFile = textOr(object, "results");
      break;
    case BenchmarkEventKind::Other: break;
  }
  return event;
}

}  // namespace tb::runs
