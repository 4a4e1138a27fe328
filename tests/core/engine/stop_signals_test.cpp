// SIGINT and SIGTERM must set the flag the trainer polls, and only while the
// guard is alive; afterwards the previous handlers are back.
#include "tb/engine/stop_signals.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace {

std::atomic<int> gPreviousHandlerCalls{0};
extern "C" void countingHandler(int /*signal*/) { ++gPreviousHandlerCalls; }

TEST(StopSignals, SigintAndSigtermSetTheFlagWhileTheGuardLives) {
  const auto previous = std::signal(SIGINT, countingHandler);
  const auto previousTerm = std::signal(SIGTERM, countingHandler);
  {
    tb::engine::StopSignalGuard guard;
    EXPECT_FALSE(guard.flag().load());
    std::raise(SIGINT);
    EXPECT_TRUE(guard.flag().load());
  }
  {
    tb::engine::StopSignalGuard guard;  // a new guard starts unset
    EXPECT_FALSE(guard.flag().load());
    std::raise(SIGTERM);
    EXPECT_TRUE(guard.flag().load());
  }
  EXPECT_EQ(gPreviousHandlerCalls.load(), 0);
  std::raise(SIGINT);  // the guard restored the handler it replaced
  EXPECT_EQ(gPreviousHandlerCalls.load(), 1);
  std::signal(SIGINT, previous);
  std::signal(SIGTERM, previousTerm);
}

}  // namespace
