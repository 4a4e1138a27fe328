// SIGINT and SIGTERM stop a benchmark between steps instead of killing it:
// the runner forwards the stop to the current child and still writes
// results.json. The engine has its own guard, but the CLI cannot rely on the
// engine being built in, and this one also reports which signal came.
#pragma once

#include <atomic>

namespace tb::cli {

/// Installs SIGINT/SIGTERM handlers for its lifetime and restores the old ones.
class BenchmarkStopGuard {
 public:
  BenchmarkStopGuard();
  ~BenchmarkStopGuard();
  BenchmarkStopGuard(const BenchmarkStopGuard&) = delete;
  BenchmarkStopGuard& operator=(const BenchmarkStopGuard&) = delete;

  /// True once either signal arrived.
  [[nodiscard]] bool stopRequested() const;
  /// The signal that arrived first (SIGINT or SIGTERM), 0 if none.
  [[nodiscard]] int signalNumber() const;
};

}  // namespace tb::cli
