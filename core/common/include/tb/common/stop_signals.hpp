// SIGINT and SIGTERM end work cleanly (a run ends `interrupted` with its
// events kept, a benchmark keeps its finished runs) instead of killing the
// process mid-write. A handler may only store to a lock-free atomic, so the
// guard owns one flag that the work polls through a StopToken. The one guard
// of the project: `trainbench run`, `benchmark` and the launcher use it.
#pragma once

#include <chrono>

#include "tb/common/stop_token.hpp"

namespace tb {

/// The signal every part of the project stops a child with: a child's clean
/// stop (and torchrun's, and Kubernetes') is SIGTERM; SIGKILL follows only
/// after a grace period.
inline constexpr int kStopSignal = 15;  // SIGTERM, without <csignal> in every includer

/// How long a training run gets between kStopSignal and SIGKILL: time to
/// finish its step and write summary.json. A parent of something that stops
/// such runs itself (the Studio over `trainbench benchmark`) waits longer.
inline constexpr std::chrono::milliseconds kRunStopGrace{20000};

/// Makes a write past the file-size limit (`ulimit -f`, RLIMIT_FSIZE) fail
/// with EFBIG, which the atomic writers report naming the file, instead of
/// SIGXFSZ ending the process with nothing said. Each program calls it first.
void reportFileSizeLimitAsWriteError();

/// Installs SIGINT/SIGTERM handlers for its lifetime and restores the old ones.
/// One guard at a time per process.
class StopSignalGuard {
 public:
  StopSignalGuard();
  ~StopSignalGuard();
  StopSignalGuard(const StopSignalGuard&) = delete;
  StopSignalGuard& operator=(const StopSignalGuard&) = delete;

  /// Stops once either signal arrived.
  [[nodiscard]] StopToken token() const;
  [[nodiscard]] bool stopRequested() const;
  /// The first signal that arrived (SIGINT or SIGTERM), 0 before any.
  [[nodiscard]] int signalNumber() const;
};

}  // namespace tb
