// Runs the four-step ablation as fresh `trainbench run` child processes: a
// crash or an out-of-memory stop stays in its child, and every
// configuration's peak memory is measured in a process of its own. The CLI's
// `trainbench benchmark` drives this runner and reports its progress as the
// typed events of core/runs/benchmark_event.hpp, which the Studio's Ablation
// page follows; a StopToken stops it.
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
#include "tb/common/stop_token.hpp"
#include "tb/runs/benchmark_event.hpp"

namespace tb::bench {

/// Everything one ablation needs; the model flags are passed on verbatim.
struct AblationSpec {
  std::filesystem::path program;       ///< the trainbench binary that runs the children
  std::vector<std::string> modelArgs;  ///< MODEL-FLAGS, e.g. {"--model", "small"}
  std::string model;                   ///< the model's name, for results.json
  std::int64_t steps = 20;             ///< per run, warm-up included
  std::int64_t warmupSteps = 5;        ///< left out of every statistic
  int repeats = 3;
  std::uint64_t memoryBudgetBytes = 0;  ///< the same for every configuration
  int threads = 0;                      ///< 0: each runtime picks its own
  std::filesystem::path outDir;         ///< results.json and runs/<label>-<repeat>/
  std::string appVersion;
  std::string createdAt;  ///< ISO 8601 UTC; empty: now
  std::string device = "cpu";
  /// Data-parallel worker processes of every run (`trainbench run
  /// --nproc-per-node`); 0: each run is one process. The budget is per rank.
  int processes = 0;
  /// Where the budget came from, for the plan event: the predictor's peaks
  /// for Base (every block recomputed) and for keeping every activation.
  bool budgetFromPredictor = false;
  std::uint64_t fullRecomputePeakBytes = 0;
  std::uint64_t noRecomputePeakBytes = 0;
};

/// The steps `trainbench benchmark` leaves out of a run of `steps` steps: a
/// quarter of them, at least one and at most five (none for a one-step run),
/// since the first steps pay for allocation and the first use of each kernel.
[[nodiscard]] std::int64_t defaultWarmupSteps(std::int64_t steps) noexcept;

/// Where benchmarks go unless told otherwise: <data directory>/benchmarks,
/// shared by `trainbench benchmark` and the Studio's Ablation page.
[[nodiscard]] std::filesystem::path benchmarksDirectory();

/// A new output folder in benchmarksDirectory(), "<UTC stamp>-<model>", so
/// that runs from a terminal and from the Studio sort together by time.
[[nodiscard]] std::filesystem::path defaultBenchmarkOutDir(std::string_view model);

/// The caller's hooks. Every event of `trainbench benchmark --events` is
/// reported through `events` in order (plan, then each run's start, steps and
/// end, then the summary), from the runner's thread; it must not block.
/// Once `stop` is requested the current child is stopped (it ends as
/// "interrupted") and no further one starts.
struct AblationCallbacks {
  std::function<void(const runs::BenchmarkEvent&)> events;
  StopToken stop;
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
