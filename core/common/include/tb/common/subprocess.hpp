// The one way core starts a child process, in two shapes: runProcess
// collects a short child's output with a deadline (nvidia-smi, tests driving
// the CLI); runWatchedProcess runs a long child (a benchmark's training run)
// whose output goes to a log file, so it never fills a pipe, while the caller
// watches it and may stop it. Both start the child through one spawn function.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/common/stop_signals.hpp"
#include "tb/common/stop_token.hpp"

namespace tb {

struct ProcessOptions {
  std::chrono::milliseconds timeout{10000};
  /// Variables set (or overridden) in the child's environment.
  std::map<std::string, std::string> environment;
  /// Variables removed from the child's environment.
  std::vector<std::string> unsetEnvironment;
  std::string standardInput;  ///< written to the child's stdin, then closed
};

struct ProcessResult {
  int exitCode = -1;   ///< valid when the child exited normally
  int signal = 0;      ///< the signal that ended it, 0 if none
  bool timedOut = false;
  std::string standardOutput;
  std::string standardError;
};

/// Runs argv[0] (searched on PATH when it has no slash). Fails only when the
/// program cannot be started (NotFound); a non-zero exit is a result.
Expected<ProcessResult> runProcess(const std::vector<std::string>& argv,
                                   const ProcessOptions& options = {});

/// How a long child is watched and stopped.
struct WatchOptions {
  std::filesystem::path logFile;  ///< stdout and stderr, truncated first
  std::chrono::milliseconds tick{200};
  /// Time between kStopSignal (SIGTERM: the engine writes its summary) and SIGKILL.
  std::chrono::milliseconds stopGrace = kRunStopGrace;
};

/// How a watched child ended.
struct WatchedOutcome {
  int exitCode = -1;           ///< valid when it exited normally
  int signal = 0;              ///< the signal that ended it, 0 if none
  bool stopRequested = false;  ///< `stop` was requested while it ran
};

/// Runs argv[0] (a path) with stdin from /dev/null and calls `onTick` every
/// tick; once `stop` is requested the child gets SIGTERM, and SIGKILL if it is
/// still there after stopGrace. The child stays in our process group, so
/// Ctrl-C on a terminal reaches it directly. Fails only when the child cannot
/// be started or the log cannot be opened.
[[nodiscard]] Expected<WatchedOutcome> runWatchedProcess(const std::vector<std::string>& argv,
                                                         const WatchOptions& options,
                                                         const StopToken& stop,
                                                         const std::function<void()>& onTick = {});

}  // namespace tb
