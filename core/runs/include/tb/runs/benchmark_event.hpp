// One line of `trainbench benchmark --events` (JSON lines, docs/CLI.md). The
// benchmark's own progress text, the Studio's Ablation page and any script
// follow a benchmark through these events alone, so rewording what the CLI
// prints for people can never break a reader. Written and read here only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/runs/run_state.hpp"

namespace tb::runs {

/// Which event a line is; Other keeps newer writers' events from being errors.
enum class BenchmarkEventKind { Plan, RunStart, RunStep, RunEnd, Summary, Other };

/// "plan", "run_start", "run_step", "run_end", "summary"; "other" for Other.
[[nodiscard]] std::string_view toString(BenchmarkEventKind kind);

/// Which scheduled run an event is about.
struct BenchmarkRunRef {
  std::int64_t index = 0;   ///< 0-based position in the schedule
  std::int64_t total = 0;   ///< runs in the schedule
  std::string label;        ///< ablation label, e.g. "AC2+CompilerOpt"
  std::int64_t repeat = 0;  ///< 0-based
  std::string runDir;
};

/// What a benchmark will do (the first event).
struct BenchmarkPlan {
  std::string model;
  std::int64_t steps = 0;
  std::int64_t warmupSteps = 0;
  std::int64_t repeats = 0;
  std::uint64_t memoryBudgetBytes = 0;
  bool budgetFromPredictor = false;
  std::uint64_t fullRecomputePeakBytes = 0;  ///< when the budget came from the predictor
  std::uint64_t noRecomputePeakBytes = 0;
  std::string resultsFile;
  std::vector<BenchmarkRunRef> runs;  ///< the schedule, in order
};

/// How one child run ended.
struct BenchmarkRunEnd {
  RunState state = RunState::Failed;
  std::string message;  ///< why it did not complete; empty when it did
  double tokensPerSecond = 0.0;
  double stepTimeSeconds = 0.0;
  std::uint64_t peakBytes = 0;
  double wallSeconds = 0.0;
};

/// How the whole benchmark ended (the last event).
struct BenchmarkSummary {
  std::int64_t finishedRuns = 0;
  std::int64_t failedRuns = 0;  ///< ended oom or failed
  bool stopped = false;         ///< stopped by a signal or a cancel: results are partial
  std::string resultsFile;
};

/// A parsed event; only the members of its kind are filled.
struct BenchmarkEvent {
  BenchmarkEventKind kind = BenchmarkEventKind::Other;
  std::string name;  ///< the `event` field as written
  double elapsedSeconds = 0.0;
  BenchmarkPlan plan;        ///< Plan
  BenchmarkRunRef run;       ///< RunStart, RunStep, RunEnd
  std::int64_t step = 0;     ///< RunStep: the child's last completed step
  std::int64_t steps = 0;    ///< RunStart, RunStep: the child's configured steps
  BenchmarkRunEnd end;       ///< RunEnd
  BenchmarkSummary summary;  ///< Summary
};

/// The event as one JSON line (no newline); `elapsedSeconds` is written as given.
[[nodiscard]] std::string toJsonLine(const BenchmarkEvent& event);

/// Parses one line; the error names the missing or mistyped field.
[[nodiscard]] Expected<BenchmarkEvent> parseBenchmarkEventLine(std::string_view line);

}  // namespace tb::runs
