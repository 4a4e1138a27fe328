// A configuration must keep one throughput unit: mixing tokens/s from one
// run with TFLOP/s from another would make its median meaningless, so that is
// refused rather than converted with a guessed FLOPs-per-token.
#include "cluster_rows.hpp"

#include <cmath>
#include <map>
#include <tuple>

#include "tb/bench/ablation.hpp"
#include "tb/common/units.hpp"

namespace tb::bench::detail {

namespace {

Error rowError(const ClusterRow& row, const std::string& field, const std::string& what) {
  return makeError(ErrorKind::Parse, row.where + ": field " + field + ": " + what);
}

std::string unitOf(const ClusterRow& row) {
  return row.tokensPerSPerGpu ? "tokens/s/gpu" : "TFLOP/s/gpu";
}

}  // namespace

const std::vector<std::string>& clusterFieldNames() {
  static const std::vector<std::string> names = {
      "label",          "model",           "gpus",        "tokens_per_s_per_gpu",
      "tflops_per_gpu", "peak_memory_gib", "step_time_s", "notes"};
  return names;
}

Expected<std::vector<ConfigurationResult>> configurationsFromRows(
    const std::vector<ClusterRow>& rows) {
  if (rows.empty()) return makeError(ErrorKind::Parse, "no runs in the file");
  using Key = std::tuple<int, std::string, int>;
  std::map<Key, ConfigurationResult> groups;
  for (const ClusterRow& row : rows) {
    const std::optional<AblationStep> step = parseAblationLabel(row.label);
    if (!step) {
      return rowError(row, "label",
                      "'" + row.label +
                          "' is not an ablation label (Base, AC2, AC2+CompilerOpt, "
                          "AC2+CompilerOpt+CkptOpt)");
    }
    if (row.model.empty()) return rowError(row, "model", "empty");
    if (row.gpus < 1) return rowError(row, "gpus", std::to_string(row.gpus) + " is not >= 1");
    if (!row.tokensPerSPerGpu && !row.tflopsPerGpu) {
      return rowError(row, "tokens_per_s_per_gpu",
                      "missing: give tokens_per_s_per_gpu or tflops_per_gpu");
    }
    const Key key{chainIndex(*step), row.model, row.gpus};
    auto [it, inserted] = groups.try_emplace(key);
    ConfigurationResult& config = it->second;
    if (inserted) {
      config.label = std::string(label(*step));
      config.source = ResultSource::Cluster;
      config.model = row.model;
      config.gpus = row.gpus;
      config.throughputUnit = unitOf(row);
    } else if (config.throughputUnit != unitOf(row)) {
      return rowError(row, row.tokensPerSPerGpu ? "tokens_per_s_per_gpu" : "tflops_per_gpu",
                      "earlier runs of " + config.label + " on " + std::to_string(row.gpus) +
                          " GPUs give " + config.throughputUnit +
                          "; use one unit per configuration");
    }
    RunMeasurement run;
    run.repeat = static_cast<int>(config.runs.size());
    run.tokensPerS = row.tokensPerSPerGpu ? *row.tokensPerSPerGpu : *row.tflopsPerGpu;
    run.stepTimeS = row.stepTimeS.value_or(0.0);
    run.excludedSeconds = row.excludedSeconds.value_or(0.0);
    run.excludedKinds = row.excludedKinds;
    if (row.peakMemoryGib) {
      run.peakBytes = static_cast<std::uint64_t>(std::llround(*row.peakMemoryGib * kGiB));
    }
    if (!row.lossCurve.empty()) {
      run.lossFirst = row.lossCurve.front();
      run.lossLast = row.lossCurve.back();
    }
    config.runs.push_back(run);
    if (row.stepTimeS) config.stepTimes.push_back(*row.stepTimeS);
    // One representative curve per configuration: its first run's.
    if (config.lossCurve.empty() && !row.lossCurve.empty()) {
      config.lossCurve = row.lossCurve;
      config.lossSteps = row.lossSteps;
    }
  }
  std::vector<ConfigurationResult> configurations;
  for (auto& [key, config] : groups) {
    if (Status status = summarizeRuns(config); !status) return status.error();
    configurations.push_back(std::move(config));
  }
  return configurations;
}

}  // namespace tb::bench::detail
