// The run store is the directory tree `trainbench run` writes; there is no
// index file to fall out of step with it. Listing reads each run's
// config.json and summary.json, and a run it cannot read becomes a row that
// says why rather than an error that hides every other run.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/runs/run_config_record.hpp"
#include "tb/runs/run_state.hpp"
#include "tb/runs/run_summary.hpp"

namespace tb::runs {

/// One run directory as a row of the runs list.
struct RunRecord {
  std::string id;  ///< the directory name (UTC timestamp, model, nonce)
  std::filesystem::path dir;
  std::string model;
  RunState state = RunState::Unreadable;
  std::string message;          ///< why it failed, or why it cannot be read
  std::int64_t steps = 0;       ///< steps done (summary), 0 while unknown
  std::int64_t totalSteps = 0;  ///< steps configured (config.json)
  double tokensPerSecond = 0.0;
  std::uint64_t peakBytes = 0;
  std::optional<double> lossFirst;
  std::optional<double> lossLast;
  std::string recompute;
  std::chrono::system_clock::time_point startedAt{};  ///< config.json's write time
};

/// `tb::dataDirectory()/runs`: where the CLI writes runs, so the GUI lists them too.
[[nodiscard]] std::filesystem::path runStoreDirectory();

/// How long a run without summary.json counts as running after its last write;
/// past that it was killed without a chance to write a summary.
inline constexpr std::chrono::seconds kRunningGrace{120};

/// `runDir`/config.json; the error names the file and what is wrong with it.
[[nodiscard]] Expected<RunConfigRecord> readRunConfig(const std::filesystem::path& runDir);

/// `runDir`/summary.json; NotFound when the run has not written one (yet),
/// as parseSummaryText says for empty text.
[[nodiscard]] Expected<RunSummary> readRunSummary(const std::filesystem::path& runDir);

/// Whether `path` is one run's directory (it has config.json), not a store.
[[nodiscard]] bool isRunDirectory(const std::filesystem::path& path);

/// The record of one run directory; never fails (problems go to `message`).
[[nodiscard]] RunRecord readRun(const std::filesystem::path& runDir,
                                std::chrono::seconds runningGrace = kRunningGrace);

/// Every run under `store`, newest first; an empty list when `store` does not
/// exist yet; an error only when it exists and cannot be listed.
[[nodiscard]] Expected<std::vector<RunRecord>> listRuns(
    const std::filesystem::path& store = runStoreDirectory(),
    std::chrono::seconds runningGrace = kRunningGrace);

}  // namespace tb::runs
