// How a stored run stands. The engine's four end states plus the two a reader
// can only infer (still running, or files it cannot read), so a list of runs
// never has to guess with an empty string.
#pragma once

#include <optional>
#include <string_view>

namespace tb::runs {

/// The state of a run as the store shows it.
enum class RunState { Completed, Interrupted, Oom, Failed, Running, Unreadable };

/// "completed", "interrupted", "oom", "failed", "running", "unreadable".
[[nodiscard]] std::string_view toString(RunState state);

/// The engine's status names (summary.json `status`); nothing for any other text.
[[nodiscard]] std::optional<RunState> runStateFromStatus(std::string_view status);

}  // namespace tb::runs
