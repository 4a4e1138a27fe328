// Events are read leniently: a line cut short by a killed child, or a step
// whose loss was not read back (the tuned runtime syncs only at log
// intervals), is skipped rather than failing the whole benchmark.
#include "tb/bench/run_reading.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

#include "tb/bench/statistics.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/common/text.hpp"

namespace tb::bench {
namespace {

using Json = nlohmann::json;

// The engine's run statuses, spelled as results.json spells them.
std::string measurementStatus(const std::string& runStatus) {
  if (runStatus == "completed") return "ok";
  if (runStatus == "interrupted" || runStatus == "oom") return runStatus;
  return "failed";
}

double numberOr(const Json& object, const char* key, double fallback) {
  const auto found = object.find(key);
  if (found == object.end() || !found->is_number()) return fallback;
  return found->get<double>();
}

template <class Visit>
void forEachEvent(std::string_view eventsJsonl, Visit visit) {
  for (const std::string_view line : split(eventsJsonl, '\n')) {
    if (trim(line).empty()) continue;
    const Json event = Json::parse(line, nullptr, false);
    if (event.is_discarded() || !event.is_object()) continue;
    const auto name = event.find("event");
    if (name == event.end() || !name->is_string()) continue;
    visit(name->get<std::string>(), event);
  }
}

double medianOr(const std::vector<double>& values, double fallback) {
  Expected<Summary> summary = summarize(values);
  return summary ? summary->median : fallback;
}

}  // namespace

RunReading readRun(std::string_view eventsJsonl, std::string_view summaryJson,
                   std::int64_t warmupSteps) {
  RunReading reading;
  double measuredTokens = 0.0;
  double flopsPerToken = 0.0;
  double matmulGflops = 0.0;
  forEachEvent(eventsJsonl, [&](const std::string& name, const Json& event) {
    if (name == "start") {
      reading.matmulPath = event.value("matmul_path", std::string());
      flopsPerToken = numberOr(event, "flops_per_token", 0.0);
      matmulGflops = numberOr(event, "matmul_gflops", 0.0);
      if (const auto config = event.find("config"); config != event.end() && config->is_object()) {
        reading.torchVersion = config->value("torch_version", std::string());
        reading.threads = static_cast<int>(numberOr(*config, "threads", 0.0));
      }
    } else if (name == "step") {
      const double loss = numberOr(event, "loss", NAN);
      if (std::isfinite(loss)) reading.losses.push_back(loss);
      const double step = numberOr(event, "step", 0.0);
      const double seconds = numberOr(event, "step_time_s", 0.0);
      const double tokens = numberOr(event, "tokens_per_s", 0.0);
      if (step > static_cast<double>(warmupSteps) && seconds > 0.0 && tokens > 0.0) {
        reading.stepTimes.push_back(seconds);
        measuredTokens += tokens * seconds;
      }
    }
  });

  const Json summary = Json::parse(summaryJson, nullptr, false);
  const bool haveSummary = summary.is_object();
  RunMeasurement& run = reading.measurement;
  run.status = haveSummary ? measurementStatus(summary.value("status", std::string())) : "failed";
  if (haveSummary) {
    reading.message = summary.value("message", std::string());
    run.peakBytes = static_cast<std::uint64_t>(numberOr(summary, "peak_bytes", 0.0));
    if (reading.threads == 0) reading.threads = static_cast<int>(numberOr(summary, "threads", 0));
  } else {
    reading.message = "the run ended without writing summary.json";
  }
  run.stepTimeS = medianOr(reading.stepTimes,
                           haveSummary ? numberOr(summary, "step_time_s", 0.0) : 0.0);
  // Tokens per step over the median step, as the engine's summary defines
  // it; a median of per-step rates would disagree with the step time.
  if (!reading.stepTimes.empty()) {
    const double tokensPerStep = measuredTokens / static_cast<double>(reading.stepTimes.size());
    run.tokensPerS = run.stepTimeS > 0.0 ? tokensPerStep / run.stepTimeS : 0.0;
  } else if (haveSummary) {
    run.tokensPerS = numberOr(summary, "tokens_per_s", 0.0);
  }
  // MFU as the engine defines it, but over the measured steps only.
  if (matmulGflops > 0.0) run.mfu = run.tokensPerS * flopsPerToken / (matmulGflops * 1e9);
  else if (haveSummary) run.mfu = numberOr(summary, "mfu", 0.0);
  if (!reading.losses.empty()) {
    run.lossFirst = reading.losses.front();
    run.lossLast = reading.losses.back();
  }
  return reading;
}

RunReading readRunDirectory(const std::filesystem::path& dir, std::int64_t warmupSteps) {
  const Expected<std::string> events = readFile(dir / "events.jsonl");
  const Expected<std::string> summary = readFile(dir / "summary.json");
  RunReading reading = readRun(events ? *events : std::string(),
                               summary ? *summary : std::string(), warmupSteps);
  reading.measurement.runDir = dir.string();
  return reading;
}

std::int64_t lastStep(std::string_view eventsJsonl) {
  // Called many times a second while a run is in progress: only the tail is
  // parsed, from the last line backwards to the first complete step event.
  std::size_t end = eventsJsonl.size();
  while (end > 0) {
    const std::size_t newline = eventsJsonl.rfind('\n', end - 1);
    const std::size_t begin = newline == std::string_view::npos ? 0 : newline + 1;
    const Json event = Json::parse(eventsJsonl.substr(begin, end - begin), nullptr, false);
    if (event.is_object() && event.value("event", std::string()) == "step") {
      return static_cast<std::int64_t>(numberOr(event, "step", 0.0));
    }
    if (newline == std::string_view::npos) break;
    end = newline;
  }
  return 0;
}

}  // namespace tb::bench
