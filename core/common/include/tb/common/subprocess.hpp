// The one way core starts a child process, in three shapes: runProcess
// collects a short child's output with a deadline (nvidia-smi, tests driving
// the CLI); runWatchedProcess runs a long child (a benchmark's training run)
// whose output goes to a log file, so it never fills a pipe, while the caller
// watches it and may stop it; runProcessGroup runs children that live and die
// together (a data-parallel run's workers, as torchrun's agent does), hands
// their output over line by line and stops them all once one fails. All start
// their children through one spawn function.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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
  int exitCode = -1;  ///< valid when the child exited normally
  int signal = 0;     ///< the signal that ended it, 0 if none
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

/// One child of a group started together (a data-parallel run's workers).
struct GroupMember {
  std::vector<std::string> argv;                   ///< argv[0] a path
  std::map<std::string, std::string> environment;  ///< set or overridden in its environment
};

/// How a group is watched and stopped.
struct GroupOptions {
  /// Longest wait between checks: a member that exits while a grandchild
  /// still holds its pipes open is seen within a tick, not when they close.
  std::chrono::milliseconds tick{100};
  std::chrono::milliseconds stopGrace = kRunStopGrace;  ///< kStopSignal .. SIGKILL
  /// Each complete line a member writes to stdout / stderr, without the '\n',
  /// in order per member, on the caller's thread. A last line without '\n' is
  /// delivered when the pipe closes. Null: the stream is read and discarded,
  /// so a member never blocks on a full pipe.
  std::function<void(std::size_t member, std::string_view line)> onStdoutLine;
  std::function<void(std::size_t member, std::string_view line)> onStderrLine;
};

/// How one member ended.
struct MemberExit {
  int exitCode = -1;  ///< valid when it exited normally
  int signal = 0;     ///< the signal that ended it, 0 if none
  [[nodiscard]] bool failed() const { return signal != 0 || exitCode != 0; }
};

/// How a group ended.
struct GroupOutcome {
  std::vector<MemberExit> exits;  ///< one per member, in order
  /// The member whose failure stopped the group: the first seen to fail (a
  /// non-zero exit or a signal; in one check, the lowest index), if any. Only
  /// failures before the group was stopped count: a member that ends by our
  /// SIGTERM / SIGKILL, or exits non-zero on it, is the stop, not a cause, so
  /// a stop through `stop` leaves this empty.
  std::optional<std::size_t> firstFailure;
  bool stopRequested = false;  ///< `stop` was requested while they ran
};

/// Starts every member (argv[0] a path, stdin from /dev/null, stdout and
/// stderr each through its own pipe) and watches them from the caller's
/// thread until all have exited. A group lives and dies together, as
/// torchrun's workers do: once one member fails, or `stop` is requested, every
/// member still running gets kStopSignal followed by SIGCONT (so that a
/// member stopped by SIGSTOP acts on it), and SIGKILL if it is still there
/// after stopGrace. The members stay in our process group, so Ctrl-C on a
/// terminal reaches them directly. Never returns while a member runs; output
/// that a leftover grandchild still writes after all members exited is not
/// waited for. Fails when a member cannot be started (the ones already
/// started are stopped and reaped first) or the group is empty.
[[nodiscard]] Expected<GroupOutcome> runProcessGroup(const std::vector<GroupMember>& members,
                                                     const GroupOptions& options,
                                                     const StopToken& stop);

}  // namespace tb
