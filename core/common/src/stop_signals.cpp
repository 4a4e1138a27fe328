// Signal handlers can only store to a lock-free atomic; everything else
// (closing files, writing the summary) happens where the work polls it.
#include "tb/common/stop_signals.hpp"

#include <atomic>
#include <csignal>

namespace tb {
namespace {

static_assert(kStopSignal == SIGTERM);

std::atomic<int> gStopSignal{0};
std::atomic<bool> gStopRequested{false};
static_assert(std::atomic<int>::is_always_lock_free);
static_assert(std::atomic<bool>::is_always_lock_free);

struct sigaction gPreviousInt {};
struct sigaction gPreviousTerm {};

extern "C" void onStopSignal(int signal) {
  int none = 0;
  gStopSignal.compare_exchange_strong(none, signal);
  gStopRequested.store(true);
}

}  // namespace

StopSignalGuard::StopSignalGuard() {
  gStopSignal.store(0);
  gStopRequested.store(false);
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  // A write blocked on a full pipe (--events -) must resume, not fail with
  // EINTR and leave the stream bad for every event after the signal.
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &gPreviousInt);
  sigaction(SIGTERM, &action, &gPreviousTerm);
}

StopSignalGuard::~StopSignalGuard() {
  sigaction(SIGINT, &gPreviousInt, nullptr);
  sigaction(SIGTERM, &gPreviousTerm, nullptr);
}

StopToken StopSignalGuard::token() const { return StopToken::watching(gStopRequested); }

bool StopSignalGuard::stopRequested() const { return gStopRequested.load(); }

int StopSignalGuard::signalNumber() const { return gStopSignal.load(); }

void reportFileSizeLimitAsWriteError() { std::signal(SIGXFSZ, SIG_IGN); }

}  // namespace tb
