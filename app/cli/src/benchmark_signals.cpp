// A handler may only store to a lock-free atomic; the runner polls it.
#include "benchmark_signals.hpp"

#include <csignal>

namespace tb::cli {
namespace {

std::atomic<int> gStopSignal{0};
static_assert(std::atomic<int>::is_always_lock_free);

struct sigaction gPreviousInt {};
struct sigaction gPreviousTerm {};

extern "C" void onBenchmarkStop(int signal) {
  int none = 0;
  gStopSignal.compare_exchange_strong(none, signal);
}

}  // namespace

BenchmarkStopGuard::BenchmarkStopGuard() {
  gStopSignal.store(0);
  struct sigaction action {};
  action.sa_handler = onBenchmarkStop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &gPreviousInt);
  sigaction(SIGTERM, &action, &gPreviousTerm);
}

BenchmarkStopGuard::~BenchmarkStopGuard() {
  sigaction(SIGINT, &gPreviousInt, nullptr);
  sigaction(SIGTERM, &gPreviousTerm, nullptr);
}

bool BenchmarkStopGuard::stopRequested() const { return gStopSignal.load() != 0; }

int BenchmarkStopGuard::signalNumber() const { return gStopSignal.load(); }

}  // namespace tb::cli
