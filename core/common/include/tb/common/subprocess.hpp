// Running a child process and collecting its output, with a deadline.
// Used for nvidia-smi today and for engine child processes later; tests use
// it to drive the real CLI binary.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "tb/common/expected.hpp"

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

}  // namespace tb
