// Signal handlers can only set a lock-free atomic; everything else (closing
// files, writing the summary) happens in the trainer when it polls the flag.
#include "tb/engine/stop_signals.hpp"

#include <csignal>

namespace tb::engine {
namespace {

std::atomic<bool> gStopRequested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

struct sigaction gPreviousInt {};
struct sigaction gPreviousTerm {};

extern "C" void onStopSignal(int /*signal*/) { gStopRequested.store(true); }

}  // namespace

StopSignalGuard::StopSignalGuard() {
  gStopRequested.store(false);
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &gPreviousInt);
  sigaction(SIGTERM, &action, &gPreviousTerm);
}

StopSignalGuard::~StopSignalGuard() {
  sigaction(SIGINT, &gPreviousInt, nullptr);
  sigaction(SIGTERM, &gPreviousTerm, nullptr);
}

const std::atomic<bool>& StopSignalGuard::flag() const { return gStopRequested; }

}  // namespace tb::engine
