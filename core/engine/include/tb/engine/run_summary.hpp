// The outcome of a run, as the CLI prints it with --json and as summary.json
// stores it. A run that started always ends in a summary, whatever stopped it;
// only input that cannot start a run becomes a tb::Error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb::engine {

/// How a run ended.
enum class RunStatus { Completed, Interrupted, Oom, Failed };

[[nodiscard]] std::string_view toString(RunStatus status);

/// Measurements of one run; times are medians over the steps of this process.
struct RunSummary {
  RunStatus status = RunStatus::Failed;
  std::string message;             ///< why it did not complete; empty when it did
  std::string model;               ///< the ModelConfig name
  std::int64_t steps = 0;          ///< last completed step (includes resumed steps)
  std::int64_t firstStep = 1;      ///< first step this process ran (> 1 after a resume)
  std::int64_t params = 0;
  double tokensPerSecond = 0.0;    ///< median over steps of the step's tokens over its time
  double stepTimeSeconds = 0.0;    ///< median
  std::uint64_t peakBytes = 0;     ///< tracked CPU tensor bytes, or the CUDA allocator's peak
  double lossFirst = 0.0;          ///< loss of the first step this process ran
  double lossLast = 0.0;
  std::optional<double> heldOutLoss;  ///< text data only
  double mfu = 0.0;
  double matmulGflops = 0.0;       ///< best rate of the in-process matrix-product probe
  double flopsPerToken = 0.0;
  int threads = 0;
  std::string device;
  std::string recompute;           ///< the recompute policy used (auto resolved: "layers:3")
  std::string runtime;             ///< the runtime switches as --runtime spells them
  bool compile = false;            ///< whether the compiled step ran
  std::string matmulPath;          ///< the matrix-product path used: "aten", "onednn"
  std::filesystem::path runDir;
  std::vector<double> losses;      ///< per step, from firstStep on
};

/// The summary as one JSON object (the --json output and summary.json).
[[nodiscard]] std::string toJson(const RunSummary& summary);

}  // namespace tb::engine
