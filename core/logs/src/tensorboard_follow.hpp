// A TensorBoard run followed while its writer appends: the newest event
// file is read on from the end of its last complete record, and a file that
// appears (a new file per restart) is read from its start, so nothing read
// is read twice. The run's files are read again from their starts only when
// what was read no longer stands: a file truncated, replaced or gone, an
// earlier file written to again, or a restart from a checkpoint (a new file
// whose first step is at or before a step already read, which drops the
// earlier files' steps from there on, as TensorBoard itself shows them).
// Free of protobuf, so that a build without it says what it lacks.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "step_collector.hpp"
#include "tb/common/expected.hpp"
#include "tb/runs/imported_run.hpp"

namespace tb::logs::detail {

class TensorboardFollow {
 public:
  /// `start`: the run before anything is read (its source and format).
  TensorboardFollow(std::filesystem::path target, runs::ImportedRun start, const WarmUp& warmUp);
  ~TensorboardFollow();
  TensorboardFollow(TensorboardFollow&&) noexcept;
  TensorboardFollow& operator=(TensorboardFollow&&) noexcept;
  TensorboardFollow(const TensorboardFollow&) = delete;
  TensorboardFollow& operator=(const TensorboardFollow&) = delete;

  struct Read {
    bool fed = false;  ///< a record, or the end of the newest file, is new
    /// Why the run's files were read again from their starts.
    std::optional<std::string> readAgain;
  };
  /// Reads what the run's files gained since the last call. After an error
  /// (a corrupt record) the next call reads every file from its start.
  [[nodiscard]] Expected<Read> readOn();

  /// What a one-shot read of the same bytes gives: the run's metadata and
  /// its records, finished from a copy, so reading goes on after it.
  struct Snapshot {
    runs::ImportedRun run;
    StepCollector collector;
  };
  [[nodiscard]] Snapshot snapshot() const;

 private:
  struct State;
  std::filesystem::path target_;
  runs::ImportedRun start_;
  WarmUp warmUp_;
  std::unique_ptr<State> state_;
};

}  // namespace tb::logs::detail
