// The outcome of a run: what `trainbench run --json` prints, summary.json
// stores and the `end` event carries. The engine fills it, everything else
// reads it back through summaryFromJson, so a field is named in one place.
// A run that started always ends in a summary, whatever stopped it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tb/common/expected.hpp"
#include "tb/runs/run_state.hpp"

namespace tb::runs {

/// One worker of a data-parallel run, as the run's summary lists it.
struct RankOutcome {
  int rank = 0;
  RunState state = RunState::Failed;
  std::uint64_t peakBytes = 0;
  std::string message;  ///< why it did not complete (its own words, or how it ended)

  friend bool operator==(const RankOutcome&, const RankOutcome&) = default;
};

/// Measurements of one run; times are medians over the steps of this process.
/// Under data parallelism tokens/s and the losses are the whole group's
/// (global), peakBytes the largest rank's, and `ranks` each rank's outcome.
struct RunSummary {
  RunState state = RunState::Failed;  ///< one of the four end states
  std::string message;                ///< why it did not complete; empty when it did
  std::string model;                  ///< the ModelConfig name
  std::int64_t steps = 0;             ///< last completed step (includes resumed steps)
  std::int64_t firstStep = 1;         ///< first step this process ran (> 1 after a resume)
  std::int64_t params = 0;
  double tokensPerSecond = 0.0;     ///< median step's tokens over its time
  double stepTimeSeconds = 0.0;     ///< median
  std::uint64_t peakBytes = 0;      ///< tracked CPU tensor bytes, or the CUDA allocator's peak
  std::optional<double> lossFirst;  ///< loss of the first step this process ran; none if none ran
  std::optional<double> lossLast;
  std::optional<double> heldOutLoss;  ///< text data only
  double mfu = 0.0;
  double matmulGflops = 0.0;  ///< best rate of the in-process matrix-product probe
  double flopsPerToken = 0.0;
  int threads = 0;
  std::string device;
  std::string recompute;   ///< the recompute policy used (auto resolved: "layers:3")
  std::string runtime;     ///< the runtime switches as --runtime spells them
  bool compile = false;    ///< whether the compiled step ran
  std::string matmulPath;  ///< the matrix-product path used: "aten", "onednn"
  std::filesystem::path runDir;
  std::vector<double> losses;  ///< per step, from firstStep on (in events, not the summary)
  int worldSize = 1;
  int rank = 0;                    ///< of the process that wrote it (rank 0 for the run's own)
  std::vector<RankOutcome> ranks;  ///< empty for one process

  friend bool operator==(const RunSummary&, const RunSummary&) = default;
};

/// The summary as one JSON object; field names are snake_case and stable.
[[nodiscard]] nlohmann::json toJson(const RunSummary& summary);

/// Reads a summary object. Absent fields keep their defaults (older runs have
/// fewer); `status` must be one of the four end states, or the error names it.
[[nodiscard]] Expected<RunSummary> summaryFromJson(const nlohmann::json& json);

/// summary.json's text. Empty text is NotFound (the run ended, or has not yet
/// ended, without writing one); text that is not a summary is Parse, and the
/// error names the file.
[[nodiscard]] Expected<RunSummary> parseSummaryText(std::string_view text);

}  // namespace tb::runs
