// A run's directory in the run store: config.json and summary.json are
// written whole and atomically; events.jsonl is appended and flushed line by
// line so a run that is killed keeps every event it produced.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"

namespace tb::engine {

/// The files of one run.
class RunDirectory {
 public:
  /// Uses `requested`, or a new `<data dir>/runs/<UTC time>-<model>-<nonce>`.
  [[nodiscard]] static Expected<RunDirectory> create(const std::filesystem::path& requested,
                                                     std::string_view modelName);

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::filesystem::path checkpointFile() const { return path_ / "checkpoint.tbck"; }

  Status writeConfig(std::string_view json) const;
  Status writeSummary(std::string_view json) const;
  /// Appends one line to events.jsonl and flushes it.
  Status appendEvent(std::string_view jsonLine);

 private:
  explicit RunDirectory(std::filesystem::path path) : path_(std::move(path)) {}

  std::filesystem::path path_;
  std::unique_ptr<std::ofstream> events_;
};

}  // namespace tb::engine
