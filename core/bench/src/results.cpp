// Summaries are computed from the runs that finished; a run that ran out of
// memory or failed stays in the document (so the report can say so) but
// never pulls a median down. Completeness counts engine runs only: cluster
// imports were planned elsewhere, and nothing here knows how many there were.
#include "tb/bench/results.hpp"

#include <algorithm>

#include "tb/bench/ablation.hpp"

namespace tb::bench {

std::string_view toString(ResultSource source) {
  return source == ResultSource::Engine ? "engine" : "cluster";
}

std::string_view resultsStatus(runs::RunState state) {
  return state == runs::RunState::Completed ? "ok" : runs::toString(state);
}

Status summarizeRuns(ConfigurationResult& config) {
  std::vector<double> throughput;
  std::vector<double> stepTimes;
  std::vector<double> mfus;
  const RunMeasurement* representative = nullptr;
  std::uint64_t peak = 0;
  for (const RunMeasurement& run : config.runs) {
    if (run.state != runs::RunState::Completed) continue;
    throughput.push_back(run.tokensPerS);
    if (run.stepTimeS > 0.0) stepTimes.push_back(run.stepTimeS);
    if (run.mfu > 0.0) mfus.push_back(run.mfu);
    peak = std::max(peak, run.peakBytes);
    if (representative == nullptr) representative = &run;
  }
  Expected<Summary> summary = summarize(throughput);
  if (!summary) {
    return makeError(ErrorKind::BadInput,
                     "configuration " + config.label + " has no successful run to summarise");
  }
  config.throughput = *summary;
  config.stepTimeS = Summary{};
  if (Expected<Summary> times = summarize(stepTimes)) config.stepTimeS = *times;
  config.mfu = 0.0;
  if (Expected<Summary> mfu = summarize(mfus)) config.mfu = mfu->median;
  config.peakBytes = peak;
  config.lossFirst = representative->lossFirst;
  config.lossLast = representative->lossLast;
  return {};
}

void updateCompleteness(AblationResults& results) {
  int ok = 0;
  for (const ConfigurationResult& config : results.configurations) {
    if (config.source != ResultSource::Engine) continue;
    ok += static_cast<int>(std::count_if(
        config.runs.begin(), config.runs.end(),
        [](const RunMeasurement& run) { return run.state == runs::RunState::Completed; }));
  }
  results.completedRuns = ok;
  results.complete = ok >= results.plannedRuns;
}

std::string partialNote(const AblationResults& results) {
  if (results.complete) return {};
  if (results.plannedRuns <= 0) return "partial";
  return "partial: " + std::to_string(results.completedRuns) + " of " +
         std::to_string(results.plannedRuns) + " runs completed";
}

const ConfigurationResult* findConfiguration(const AblationResults& results, std::string_view label,
                                             ResultSource source) {
  for (const ConfigurationResult& config : results.configurations) {
    if (config.label == label && config.source == source) return &config;
  }
  return nullptr;
}

std::vector<ConfigurationResult> inChainOrder(std::vector<ConfigurationResult> configurations) {
  const auto rank = [](const ConfigurationResult& config) {
    const std::optional<AblationStep> step = parseAblationLabel(config.label);
    const int chain = step ? chainIndex(*step) : static_cast<int>(kAblationSteps.size());
    return chain * 2 + (config.source == ResultSource::Engine ? 0 : 1);
  };
  std::stable_sort(configurations.begin(), configurations.end(),
                   [&](const ConfigurationResult& a, const ConfigurationResult& b) {
                     return rank(a) < rank(b);
                   });
  return configurations;
}

}  // namespace tb::bench
