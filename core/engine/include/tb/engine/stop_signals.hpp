// SIGINT and SIGTERM end a run cleanly (status `interrupted`, events kept)
// instead of killing the process mid-write. A handler may only touch a
// lock-free atomic, so the guard owns one flag that the trainer polls.
#pragma once

#include <atomic>

namespace tb::engine {

/// Installs SIGINT/SIGTERM handlers for its lifetime and restores the old ones.
class StopSignalGuard {
 public:
  StopSignalGuard();
  ~StopSignalGuard();
  StopSignalGuard(const StopSignalGuard&) = delete;
  StopSignalGuard& operator=(const StopSignalGuard&) = delete;

  /// Set once either signal arrived; pass it as RunConfig::stopRequested.
  [[nodiscard]] const std::atomic<bool>& flag() const;
};

}  // namespace tb::engine
