// SIGINT and SIGTERM must stop the token the work polls, and only while the
// guard is alive; afterwards the previous handlers are back.
#include "tb/common/stop_signals.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace {

std::atomic<int> gPreviousHandlerCalls{0};
extern "C" void countingHandler(int /*signal*/) { ++gPreviousHandlerCalls; }

TEST(StopSignals, SigintAndSigtermSetTheFlagWhileTheGuardLives) {
  const auto previous = std::signal(SIGINT, countingHandler);
  const auto previousTerm = std::signal(SIGTERM, countingHandler);
  {
    tb::StopSignalGuard guard;
    const tb::StopToken token = guard.token();
    EXPECT_FALSE(token.stopRequested());
    std::raise(SIGINT);
    EXPECT_TRUE(token.stopRequested());
    EXPECT_EQ(guard.signalNumber(), SIGINT);
  }
  {
    tb::StopSignalGuard guard;  // a new guard starts unset
    EXPECT_FALSE(guard.stopRequested());
    EXPECT_EQ(guard.signalNumber(), 0);
    std::raise(SIGTERM);
    EXPECT_TRUE(guard.token().stopRequested());
    EXPECT_EQ(guard.signalNumber(), SIGTERM);
    std::raise(SIGINT);  // the first signal is the one reported
    EXPECT_EQ(guard.signalNumber(), SIGTERM);
  }
  EXPECT_EQ(gPreviousHandlerCalls.load(), 0);
  std::raise(SIGINT);  // the guard restored the handler it replaced
  EXPECT_EQ(gPreviousHandlerCalls.load(), 1);
  std::signal(SIGINT, previous);
  std::signal(SIGTERM, previousTerm);
}

}  // namespace
