// The results of an ablation as one document: what `trainbench benchmark`
// writes to results.json, what cluster imports turn into, and what every
// chart and report reads. The JSON schema is resources/bench/results.schema.json
// and docs/RESULTS.md; parsing checks it and names the JSON path at fault.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tb/bench/statistics.hpp"
#include "tb/common/expected.hpp"
#include "tb/runs/run_state.hpp"

namespace tb::bench {

/// Version of the results.json layout this build reads and writes.
inline constexpr int kResultsSchemaVersion = 1;

/// Where a configuration's numbers were measured.
enum class ResultSource { Engine, Cluster };

[[nodiscard]] std::string_view toString(ResultSource source);

/// The machine an engine benchmark ran on.
struct Machine {
  std::string cpuModel;
  int cores = 0;           ///< physical cores
  int threads = 0;         ///< intra-op threads the runs used
  std::string matmulPath;  ///< the matrix-product path the engine chose
  std::string libtorchVersion;
  std::string device = "cpu";
  int processes = 1;  ///< data-parallel ranks of every engine run (1: one process)
};

/// A run's state as results.json spells it: "ok" for completed, else the
/// run store's name (oom, failed, interrupted).
[[nodiscard]] std::string_view resultsStatus(runs::RunState state);

/// One run of one configuration.
struct RunMeasurement {
  int repeat = 0;
  runs::RunState state = runs::RunState::Completed;  ///< results.json writes Completed as "ok"
  double tokensPerS = 0.0;                           ///< median step
  double stepTimeS = 0.0;                            ///< median step
  std::uint64_t peakBytes = 0;
  double mfu = 0.0;
  double lossFirst = 0.0;
  double lossLast = 0.0;
  std::string runDir;  ///< the run's directory, when it has one
  /// An imported run: seconds its log timed as not training (in-loop
  /// evaluation, prediction), left out of its throughput; 0 when none.
  double excludedSeconds = 0.0;
  std::vector<std::string> excludedKinds;  ///< "eval", "predict", …
};

/// One configuration of the ablation with its repeats summarised.
struct ConfigurationResult {
  std::string label;  ///< canonical ablation label (see ablation.hpp)
  ResultSource source = ResultSource::Engine;
  std::string model;
  int gpus = 0;                             ///< 0 for the engine on a CPU
  std::string throughputUnit = "tokens/s";  ///< "tokens/s", "tokens/s/gpu" or "TFLOP/s/gpu"
  Summary throughput;
  Summary stepTimeS;            ///< count 0 when the source gave no step time
  std::uint64_t peakBytes = 0;  ///< the largest peak over the repeats
  double mfu = 0.0;             ///< median over the repeats; 0 when unknown
  double lossFirst = 0.0;
  double lossLast = 0.0;
  std::vector<double> lossCurve;  ///< loss per step of one representative run
  /// The step of each lossCurve value where the run logged only some steps
  /// (an imported log); empty: steps 1, 2, 3, ….
  std::vector<std::int64_t> lossSteps;
  std::vector<double> stepTimes;  ///< every measured step time, for distributions
  std::vector<RunMeasurement> runs;
};

/// A whole ablation: engine configurations, imported ones, and where they ran.
struct AblationResults {
  int schemaVersion = kResultsSchemaVersion;
  std::string appVersion;
  std::string createdAt;         ///< ISO 8601, UTC
  std::string model;             ///< the engine model, e.g. "small"
  std::int64_t steps = 0;        ///< steps per engine run
  std::int64_t warmupSteps = 0;  ///< excluded from every statistic
  int repeats = 0;
  std::uint64_t memoryBudgetBytes = 0;
  std::string imageTag;  ///< the image configuration the results are about
  /// False while a benchmark is still writing the file, after a stop, or when
  /// a run failed: the medians then rest on fewer runs than were planned.
  bool complete = true;
  int plannedRuns = 0;    ///< repeats x 4 configurations; 0: none planned (imports)
  int completedRuns = 0;  ///< planned runs that ended with status ok
  Machine machine;
  std::vector<ConfigurationResult> configurations;
};

/// Fills `throughput`, `stepTimeS`, `peakBytes`, `mfu` and the losses of
/// `config` from its successful runs; BadInput when none succeeded.
[[nodiscard]] Status summarizeRuns(ConfigurationResult& config);

/// Sets `complete` and `completedRuns` from the engine runs recorded so far,
/// against `plannedRuns`.
void updateCompleteness(AblationResults& results);

/// "partial: 7 of 12 runs completed" for an incomplete document, else empty;
/// every view of the results (table, report, page) shows this same line.
[[nodiscard]] std::string partialNote(const AblationResults& results);

/// The configuration with this label (and source), or nullptr.
[[nodiscard]] const ConfigurationResult* findConfiguration(const AblationResults& results,
                                                           std::string_view label,
                                                           ResultSource source);

/// The configurations sorted Base first, engine before cluster within a label.
[[nodiscard]] std::vector<ConfigurationResult> inChainOrder(
    std::vector<ConfigurationResult> configurations);

/// Pretty JSON following the schema.
[[nodiscard]] std::string resultsToJson(const AblationResults& results);

/// Parses and checks a results document; errors read "<origin>: $.path: what".
[[nodiscard]] Expected<AblationResults> parseResults(std::string_view text,
                                                     std::string_view origin);

/// Reads a results file (the error names the path).
[[nodiscard]] Expected<AblationResults> loadResults(const std::filesystem::path& path);

/// Writes a results file atomically.
[[nodiscard]] Status saveResults(const std::filesystem::path& path, const AblationResults& results);

}  // namespace tb::bench
