// Following a training log while its run writes it: each poll reads only
// what was appended since the last one (a text log's parser keeps its state
// and its held last line between polls), and the import of what has been
// read so far is what importLog gives for the same bytes. A text log that
// is truncated (shorter than what was read) or replaced (another inode at
// the path) is read again from its start, and the poll says so. A
// TensorBoard run folder is read on the same way: its newest event file
// from its last complete record, a new file (a restart) from its start.
// Documents that their writer rewrites whole (the Trainer's
// trainer_state.json) are read again when their size or time changed. Polling, not change events: a file
// written on another node of a shared filesystem (NFS, Lustre, GPFS) raises
// no inotify event here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "tb/common/expected.hpp"
#include "tb/logs/log_import.hpp"

namespace tb::logs {

/// What one poll found.
struct FollowUpdate {
  /// latest() changed: new records, a new summary, or a new verdict on
  /// whether the run ended.
  bool grew = false;
  /// The file was truncated or replaced and is being read again from its
  /// start: what happened.
  std::optional<std::string> restarted;
  /// What kept this poll from reading, where it may pass (no file yet, no
  /// line of a known format yet, the file gone, a document caught half
  /// rewritten); what was read before is kept.
  std::optional<std::string> problem;
};

class LogFollower {
 public:
  /// Checks the options (as importLog does) and the loss pattern; the path
  /// is looked at by the first poll.
  [[nodiscard]] static Expected<LogFollower> open(const std::filesystem::path& path,
                                                  const ImportOptions& options = {});
  ~LogFollower();
  LogFollower(LogFollower&& other) noexcept;
  LogFollower& operator=(LogFollower&& other) noexcept;
  LogFollower(const LogFollower&) = delete;
  LogFollower& operator=(const LogFollower&) = delete;

  /// Reads what was written since the last poll. An Error (a corrupt line
  /// of the file's format, a read error, a binary file) ends the following;
  /// latest() keeps what was read before it.
  [[nodiscard]] Expected<FollowUpdate> poll();
  /// The import of everything read so far; empty before the first record.
  [[nodiscard]] const std::optional<ImportedLog>& latest() const noexcept;
  /// latest() shows its run's end (runEnded).
  [[nodiscard]] bool ended() const noexcept;
  [[nodiscard]] const std::filesystem::path& path() const noexcept;
  /// Of a text log: the bytes of the file read so far, a held last line
  /// included (latest() is the import of exactly these); 0 for documents.
  [[nodiscard]] std::uint64_t bytesRead() const noexcept;

 private:
  struct State;
  explicit LogFollower(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// Whether an import shows that its run ended: it is not partial and it
/// has a summary (the Trainer's train_runtime, MLPerf's run_stop) or a plan
/// it reached (the last record within one logging interval of the planned
/// step count).
[[nodiscard]] bool runEnded(const ImportedLog& log);

}  // namespace tb::logs
