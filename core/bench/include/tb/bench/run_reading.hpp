// Reading one finished `trainbench run` directory (through core/runs, the
// one reader of a run's files) into the numbers of an ablation. The engine's own
// summary takes medians over every step; the benchmark must leave warm-up
// steps out, so it works from the per-step events instead.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tb/bench/results.hpp"
#include "tb/common/expected.hpp"
#include "tb/runs/run_event.hpp"
#include "tb/runs/run_summary.hpp"

namespace tb::bench {

/// What one run directory says, with warm-up steps already left out.
struct RunReading {
  RunMeasurement measurement;     ///< status, medians over measured steps, peak, MFU, losses
  std::vector<double> losses;     ///< every step's loss that was read back, warm-up included
  std::vector<double> stepTimes;  ///< step times after the warm-up
  bool summaryWritten = false;    ///< false: no readable summary (the child died first)
  std::string message;            ///< why the run did not complete, if it did not
  std::string matmulPath;         ///< from the start event
  std::string torchVersion;       ///< from the start event's config
  int threads = 0;
};

/// Reads a run's events and its summary (an error when there is none, or it
/// cannot be read) and drops the first `warmupSteps` steps. A run without a
/// summary is failed (summaryWritten false, so the caller can say why from the
/// child's exit); without measured steps it falls back to the summary's medians.
[[nodiscard]] RunReading readRun(const runs::EventFile& events,
                                 const Expected<runs::RunSummary>& summary,
                                 std::int64_t warmupSteps);

/// The same over the files' text: events as JSON lines, the summary as one
/// JSON object or empty when the run never wrote one.
[[nodiscard]] RunReading readRun(std::string_view eventsJsonl, std::string_view summaryJson,
                                 std::int64_t warmupSteps);

/// Reads the run directory `dir` (its events or summary may be missing).
[[nodiscard]] RunReading readRunDirectory(const std::filesystem::path& dir,
                                          std::int64_t warmupSteps);

}  // namespace tb::bench
