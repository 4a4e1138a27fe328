// Results of cluster runs of the real image (Base image, AC2, +CompilerOpt,
// +CkptOpt on GPUs), brought in from CSV or JSON so they sit beside engine
// results in every chart and report. The accepted columns and fields are in
// docs/RESULTS.md; a bad file is refused with the line (CSV) or JSON path at
// fault, never partly imported.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/bench/results.hpp"
#include "tb/common/expected.hpp"

namespace tb::bench {

/// One run as a cluster-results file holds it (docs/RESULTS.md): what
/// `trainbench import` writes from a training framework's own log.
struct ClusterRun {
  std::string label;
  std::string model;
  int gpus = 0;
  std::optional<double> tokensPerSPerGpu;
  std::optional<double> tflopsPerGpu;
  std::optional<double> peakMemoryGib;
  std::optional<double> stepTimeS;
  std::string notes;  ///< where the numbers came from; read back but not used
  /// Seconds the log timed as not training (in-loop evaluation, prediction)
  /// that the throughput leaves out, and their kinds ("eval", "predict").
  std::optional<double> excludedSeconds;
  std::vector<std::string> excludedKinds;
  /// The loss as the run logged it: at lossSteps[i], lossCurve[i] (the
  /// charts' loss curves, aligned by step). Both empty, or equally long.
  std::vector<std::int64_t> lossSteps;
  std::vector<double> lossCurve;
};

/// The JSON form of `runs`, valid against the cluster-results schema, which
/// parseClusterJson reads back.
[[nodiscard]] std::string clusterJsonText(const std::vector<ClusterRun>& runs);

/// One row per run; rows with the same label, model and GPU count are repeats
/// of one configuration and are summarised together.
[[nodiscard]] Expected<std::vector<ConfigurationResult>> parseClusterCsv(std::string_view text,
                                                                         std::string_view origin);

/// {"schema": "trainbench-cluster-results", "version": 1, "runs": [ … ]} with
/// the same fields as the CSV columns.
[[nodiscard]] Expected<std::vector<ConfigurationResult>> parseClusterJson(std::string_view text,
                                                                          std::string_view origin);

/// Reads a .csv or .json file (by suffix; anything else is refused).
[[nodiscard]] Expected<std::vector<ConfigurationResult>> importClusterResults(
    const std::filesystem::path& file);

}  // namespace tb::bench
