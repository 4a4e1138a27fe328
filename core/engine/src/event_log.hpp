// Every event goes to two places: the caller's sink (the CLI's --events, the
// GUI's pipe) and the run's events.jsonl. One object does both so that no
// event can reach one and miss the other.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>

#include "run_directory.hpp"
#include "tb/engine/run_config.hpp"

namespace tb::engine {

/// Writes JSON-line events ("event": start, step, end, error) with the
/// seconds elapsed since the log was created.
class EventLog {
 public:
  EventLog(RunDirectory& directory, EventSink sink);

  /// Adds "event" and "elapsed_s" to `fields` and writes the line.
  void emit(const char* event, nlohmann::json fields);

  /// The first failure to append to events.jsonl, if any (a full disk must not
  /// stop the training, but the summary reports it).
  [[nodiscard]] const std::string& writeError() const { return writeError_; }

 private:
  RunDirectory* directory_;
  EventSink sink_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::string writeError_;
};

}  // namespace tb::engine
