// The exit codes of the CLI contract (docs/CLI.md). Scripts and the GUI branch
// on them, so they live in one place and never change meaning.
#pragma once

#include "tb/common/expected.hpp"

namespace tb::cli {

inline constexpr int kExitSuccess = 0;
/// Something went wrong while working (I/O, a child process, ...).
inline constexpr int kExitRuntimeFailure = 1;
/// The command line or a file it names cannot be used; stderr names the value.
inline constexpr int kExitBadInput = 2;
/// A check ran and its answer is no (for example an unsupported image).
inline constexpr int kExitCheckFailed = 3;

/// Errors about what the user gave are bad input; the rest are failures.
[[nodiscard]] constexpr int exitCodeFor(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::BadInput:
    case ErrorKind::NotFound:
    case ErrorKind::Parse: return kExitBadInput;
    case ErrorKind::Io:
    case ErrorKind::Runtime:
    case ErrorKind::Cancelled: return kExitRuntimeFailure;
  }
  return kExitRuntimeFailure;
}

}  // namespace tb::cli
