// The names match the engine's summary.json `status` so a round trip through
// the store never renames a state.
#include "tb/runs/run_state.hpp"

namespace tb::runs {

std::string_view toString(RunState state) {
  switch (state) {
    case RunState::Completed: return "completed";
    case RunState::Interrupted: return "interrupted";
    case RunState::Oom: return "oom";
    case RunState::Failed: return "failed";
    case RunState::Running: return "running";
    case RunState::Unreadable: return "unreadable";
  }
  return "unreadable";
}

std::optional<RunState> runStateFromStatus(std::string_view status) {
  if (status == "completed") return RunState::Completed;
  if (status == "interrupted") return RunState::Interrupted;
  if (status == "oom") return RunState::Oom;
  if (status == "failed") return RunState::Failed;
  return std::nullopt;
}

}  // namespace tb::runs
