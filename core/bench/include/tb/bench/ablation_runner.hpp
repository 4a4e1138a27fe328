// Runs the four-step ablation as fresh `trainbench run` child processes: a
// crash or an out-of-memory stop stays in its child, and every
// configuration's peak memory is measured in a process of its own. The CLI's
// `trainbench benchmark` and the GUI's Ablation page both drive this runner;
// progress and cancellation are callbacks, so neither blocks on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/bench/ablation.hpp"
#include "tb/bench/results.hpp"
#include "tb/common/expected.hpp"

namespace tb::bench {

/// Everything one ablation needs; the model flags are passed on verbatim.
struct AblationSpec {
  std::filesystem::path program;       ///< the trainbench binary that runs the children
  std::vector<std::string> modelArgs;  ///< MODEL-FLAGS, e.g. {"--model", "small"}
  std::string model;                   ///< the model's name, for results.json
  std::int64_t steps = 20;             ///< per run, warm-up included
  std::int64_t warmupSteps = 5;        ///< left out of every statistic
  int repeats = 3;
  std::uint64_t memoryBudgetBytes = 0; ///< the same for every configuration
  int threads = 0;                     ///< 0: each runtime picks its own
  std::filesystem::path outDir;        ///< results.json and runs/<label>-<repeat>/
  std::string appVersion;
  std::string createdAt;               ///< ISO 8601 UTC; empty: now
  std::string device = "cpu";
};

/// Where benchmarks go unless told otherwise: <data directory>/benchmarks,
/// shared by `trainbench benchmark` and the Studio's Ablation page.
[[nodiscard]] std::filesystem::path benchmarksDirectory();

/// A new output folder in benchmarksDirectory(), "<UTC stamp>-<model>", so
/// that runs from a terminal and from the Studio sort together by time.
[[nodiscard]] std::filesystem::path defaultBenchmarkOutDir(std::string_view model);

/// Where the runner is, for a progress display.
struct AblationProgress {
  std::size_t index = 0;  ///< 0-based position in the schedule
  std::size_t total = 0;
  ScheduledRun run;
  std::int64_t stepsDone = 0;
  std::int64_t steps = 0;
};

/// One run that ended, with what it measured.
struct FinishedRun {
  std::size_t index = 0;
  std::size_t total = 0;
  ScheduledRun run;
  RunMeasurement measurement;
  std::string message;  ///< why it did not complete (empty when it did)
  double wallSeconds = 0.0;
};

/// The caller's hooks; each may be empty. `keepGoing` returning false stops
/// the current child (it ends as "interrupted") and starts no further one.
struct AblationCallbacks {
  std::function<void(const AblationProgress&)> progress;
  std::function<void(const FinishedRun&)> finished;
  std::function<bool()> keepGoing;
};

/// How the ablation ended.
struct AblationOutcome {
  AblationResults results;
  std::filesystem::path resultsFile;
  std::size_t finishedRuns = 0;  ///< runs that ended (any status)
  std::size_t failedRuns = 0;    ///< runs that ended oom or failed
  bool stopped = false;          ///< the caller stopped it: the results are partial
};

/// `<outDir>/runs/<slug>-<repeat + 1>`, e.g. runs/ac2-compileropt-2.
[[nodiscard]] std::filesystem::path runDirectory(const AblationSpec& spec, const ScheduledRun& run);

/// The child's command line (program first).
[[nodiscard]] std::vector<std::string> childCommand(const AblationSpec& spec,
                                                    const ScheduledRun& run);

/// Checks the spec; errors are BadInput and name the value.
[[nodiscard]] Status validate(const AblationSpec& spec);

/// Runs the interleaved schedule and rewrites `<outDir>/results.json` after
/// every run, so a stop or a crash of this process keeps what finished. A
/// failed run is recorded and the ablation goes on. Errors: the spec, or a
/// results file that cannot be written.
[[nodiscard]] Expected<AblationOutcome> runAblation(const AblationSpec& spec,
                                                    const AblationCallbacks& callbacks);

}  // namespace tb::bench
