// Reading one finished `trainbench run` directory (summary.json and
// events.jsonl, docs/CLI.md) into the numbers of an ablation. The engine's own
// summary takes medians over every step; the benchmark must leave warm-up
// steps out, so it works from the per-step events instead.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tb/bench/results.hpp"

namespace tb::bench {

/// What one run directory says, with warm-up steps already left out.
struct RunReading {
  RunMeasurement measurement;        ///< status, medians over measured steps, peak, MFU, losses
  std::vector<double> losses;        ///< every step's loss that was read back, warm-up included
  std::vector<double> stepTimes;     ///< step times after the warm-up
  bool summaryWritten = false;       ///< false: the child ended before writing summary.json
  std::string message;               ///< why the run did not complete, if it did not
  std::string matmulPath;            ///< from the start event
  std::string torchVersion;          ///< from the start event's config
  int threads = 0;
};

/// Reads the events (JSON lines) and the summary (one JSON object, or empty
/// when the run never wrote one) and drops the first `warmupSteps` steps.
/// A run without a summary is failed (summaryWritten false, so the caller can
/// say why from the child's exit); without measured steps it falls back to the
/// summary's medians.
[[nodiscard]] RunReading readRun(std::string_view eventsJsonl, std::string_view summaryJson,
                                 std::int64_t warmupSteps);

/// Reads `<dir>/events.jsonl` and `<dir>/summary.json` (either may be missing).
[[nodiscard]] RunReading readRunDirectory(const std::filesystem::path& dir,
                                          std::int64_t warmupSteps);


/// The highest step number among the complete "step" events of `eventsJsonl`,
/// 0 when none: how far a run still in progress has got.
[[nodiscard]] std::int64_t lastStep(std::string_view eventsJsonl);

}  // namespace tb::bench
