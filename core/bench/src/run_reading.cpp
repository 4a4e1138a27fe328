// The child's files are read through core/runs, the one reader of a run
// directory. Events are read leniently: a line cut short by a killed child,
// or a step whose loss was not read back, is skipped rather than failing the
// whole benchmark.
#include "tb/bench/run_reading.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

#include "tb/common/atomic_file.hpp"
#include "tb/common/statistics.hpp"
#include "tb/runs/run_event.hpp"
#include "tb/runs/run_summary.hpp"

namespace tb::bench {

RunReading readRun(std::string_view eventsJsonl, std::string_view summaryJson,
                   std::int64_t warmupSteps) {
  RunReading reading;
  double measuredTokens = 0.0;
  double flopsPerToken = 0.0;
  double matmulGflops = 0.0;
  for (const runs::RunEvent& event : runs::parseEvents(eventsJsonl).events) {
    if (event.kind == runs::EventKind::Start) {
      reading.matmulPath = event.matmulPath;
      flopsPerToken = event.flopsPerToken;
      matmulGflops = event.matmulGflops;
      reading.torchVersion = event.torchVersion;
      reading.threads = event.threads;
    } else if (event.kind == runs::EventKind::Step) {
      const runs::StepSample& step = event.sample;
      if (std::isfinite(step.loss)) reading.losses.push_back(step.loss);
      if (step.step > warmupSteps && step.stepTimeSeconds > 0.0 && step.tokensPerSecond > 0.0) {
        reading.stepTimes.push_back(step.stepTimeSeconds);
        measuredTokens += step.tokensPerSecond * step.stepTimeSeconds;
      }
    }
  }

  const nlohmann::json summaryObject = nlohmann::json::parse(summaryJson, nullptr, false);
  Expected<runs::RunSummary> summary =
      summaryObject.is_object() ? runs::summaryFromJson(summaryObject)
                                : Expected<runs::RunSummary>(makeError(ErrorKind::Parse, "not a JSON object"));
  reading.summaryWritten = summary.ok();
  RunMeasurement& run = reading.measurement;
  run.state = summary ? summary->state : runs::RunState::Failed;
  if (summary) {
    reading.message = summary->message;
    run.peakBytes = summary->peakBytes;
    if (reading.threads == 0) reading.threads = summary->threads;
  } else if (summaryObject.is_discarded() && summaryJson.empty()) {
    reading.message = "the run ended without writing summary.json";
  } else {
    reading.message = "summary.json cannot be read: " + summary.error().message;
  }
  run.stepTimeS = reading.stepTimes.empty() ? (summary ? summary->stepTimeSeconds : 0.0)
                                            : tb::median(reading.stepTimes);
  // Tokens per step over the median step, as the engine's summary defines
  // it; a median of per-step rates would disagree with the step time.
  if (!reading.stepTimes.empty()) {
    const double tokensPerStep = measuredTokens / static_cast<double>(reading.stepTimes.size());
    run.tokensPerS = run.stepTimeS > 0.0 ? tokensPerStep / run.stepTimeS : 0.0;
  } else if (summary) {
    run.tokensPerS = summary->tokensPerSecond;
  }
  // MFU as the engine defines it, but over the measured steps only.
  if (matmulGflops > 0.0) run.mfu = run.tokensPerS * flopsPerToken / (matmulGflops * 1e9);
  else if (summary) run.mfu = summary->mfu;
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
    const auto event = runs::parseEventLine(eventsJsonl.substr(begin, end - begin));
    if (event && event->kind == runs::EventKind::Step) return event->sample.step;
    if (newline == std::string_view::npos) break;
    end = newline;
  }
  return 0;
}

}  // namespace tb::bench
