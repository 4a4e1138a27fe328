// One child process that can be watched and stopped while it runs: the
// ablation runner needs both (a progress bar, Ctrl-C), which the blocking
// tb::runProcess of core/common does not offer. Output goes to a log file,
// so a long run never fills a pipe and a failed run leaves its messages.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "tb/common/expected.hpp"

namespace tb::bench {

/// How a watched child ended.
struct ChildOutcome {
  int exitCode = -1;         ///< valid when it exited normally
  int signal = 0;            ///< the signal that ended it, 0 if none
  bool stopRequested = false;  ///< the caller asked it to stop
};

/// What to run and how to watch it.
struct ChildOptions {
  std::vector<std::string> argv;  ///< argv[0] is a path
  std::filesystem::path logFile;  ///< stdout and stderr, truncated first
  std::chrono::milliseconds tick{200};
  /// Time between SIGINT (a clean stop: the engine writes its summary) and SIGKILL.
  std::chrono::milliseconds stopGrace{20000};
};

/// Runs the child and calls `keepGoing` every tick; when it returns false
/// the child gets SIGINT, and SIGKILL if it is still there after stopGrace.
/// Fails only when the child cannot be started or the log cannot be opened.
[[nodiscard]] Expected<ChildOutcome> runWatchedChild(const ChildOptions& options,
                                                     const std::function<bool()>& keepGoing);

}  // namespace tb::bench
