// A run's directory in the run store, as the engine writes it: config.json
// and summary.json whole and atomically; events.jsonl appended and flushed
// line by line, so a run that is killed keeps every event it produced. The
// only writer of a run directory; run_store.hpp and run_event.hpp read it.
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tb/common/expected.hpp"
#include "tb/runs/run_config_record.hpp"
#include "tb/runs/run_event.hpp"
#include "tb/runs/run_summary.hpp"

namespace tb::runs {

/// The files of one run.
class RunDirectory {
 public:
  /// Uses `requested`, or a new `<run store>/<UTC time>-<model>-<nonce>`.
  [[nodiscard]] static Expected<RunDirectory> create(const std::filesystem::path& requested,
                                                     std::string_view modelName);

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::filesystem::path checkpointFile() const { return path_ / "checkpoint.tbck"; }

  Status writeConfig(const RunConfigRecord& config) const;
  Status writeSummary(const RunSummary& summary) const;
  /// Appends one line to events.jsonl and flushes it.
  Status appendEvent(std::string_view jsonLine);

 private:
  explicit RunDirectory(std::filesystem::path path) : path_(std::move(path)) {}

  std::filesystem::path path_;
  std::unique_ptr<std::ofstream> events_;
};

/// Where rank `rank` (> 0) of a data-parallel run keeps its own events and
/// summary, inside the run's directory (rank 0 writes the run's own files).
[[nodiscard]] std::filesystem::path rankDirectory(const std::filesystem::path& runDirectory,
                                                  int rank);

/// Every event goes to two places: the caller's sink and the run's
/// events.jsonl. One object does both so that no event reaches one and
/// misses the other; each line gets "event" and "elapsed_s" (seconds since
/// the log was made).
class RunEventLog {
 public:
  RunEventLog(RunDirectory& directory, EventSink sink);

  /// A `start` or other event whose fields the engine composes.
  void emit(const char* event, nlohmann::json fields);
  void emitStep(const StepSample& sample);
  void emitError(RunState state, const std::string& message);
  void emitEnd(const RunSummary& summary);

  /// The first failure to append to events.jsonl, if any (a full disk must not
  /// stop the training, but the summary reports it).
  [[nodiscard]] const std::string& writeError() const { return writeError_; }

 private:
  RunDirectory* directory_;
  EventSink sink_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::string writeError_;
};

}  // namespace tb::runs
