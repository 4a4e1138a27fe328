// The child's files are read through core/runs, the one reader of a run
// directory. Events are read leniently: a line cut short by a killed child,
// or a step whose loss was not read back, is skipped rather than failing the
// whole benchmark.
#include "tb/bench/run_reading.hpp"

#include <cmath>

#include "tb/common/statistics.hpp"
#include "tb/runs/run_event.hpp"
#include "tb/runs/run_store.hpp"

namespace tb::bench {

RunReading readRun(const runs::EventFile& events, const Expected<runs::RunSummary>& summary,
                   std::int64_t warmupSteps) {
  RunReading reading;
  double measuredTokens = 0.0;
  double flopsPerToken = 0.0;
  double matmulGflops = 0.0;
  for (const runs::RunEvent& event : events.events) {
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

  reading.summaryWritten = summary.ok();
  RunMeasurement& run = reading.measurement;
  run.state = summary ? summary->state : runs::RunState::Failed;
  if (summary) {
    reading.message = summary->message;
    run.peakBytes = summary->peakBytes;
    if (reading.threads == 0) reading.threads = summary->threads;
  } else {
    reading.message = summary.error().message;
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

RunReading readRun(std::string_view eventsJsonl, std::string_view summaryJson,
                   std::int64_t warmupSteps) {
  return readRun(runs::parseEvents(eventsJsonl), runs::parseSummaryText(summaryJson), warmupSteps);
}

RunReading readRunDirectory(const std::filesystem::path& dir, std::int64_t warmupSteps) {
  // A child killed before its first event has no events file: no steps.
  Expected<runs::EventFile> events = runs::readEvents(dir);
  RunReading reading =
      readRun(events ? *events : runs::EventFile{}, runs::readRunSummary(dir), warmupSteps);
  reading.measurement.runDir = dir.string();
  return reading;
}

}  // namespace tb::bench
