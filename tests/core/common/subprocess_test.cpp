#include "tb/common/subprocess.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "tb/common/stop_token.hpp"

namespace {

using namespace std::chrono_literals;

TEST(Subprocess, CollectsStdoutStderrAndExitCode) {
  auto result = tb::runProcess({"sh", "-c", "echo out; echo err >&2; exit 7"});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->exitCode, 7);
  EXPECT_EQ(result->standardOutput, "out\n");
  EXPECT_EQ(result->standardError, "err\n");
  EXPECT_FALSE(result->timedOut);
}

TEST(Subprocess, MissingProgramIsNotFoundAndNamed) {
  auto result = tb::runProcess({"tb-no-such-program-xyz"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, tb::ErrorKind::NotFound);
  EXPECT_NE(result.error().message.find("tb-no-such-program-xyz"), std::string::npos);
}

TEST(Subprocess, DeadlineKillsAHungChild) {
  tb::ProcessOptions options;
  options.timeout = 200ms;
  auto result = tb::runProcess({"sleep", "30"}, options);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->timedOut);
  EXPECT_EQ(result->signal, SIGKILL);
}

TEST(Subprocess, PassesEnvironmentAndStdin) {
  tb::ProcessOptions options;
  options.environment["TB_TEST_VALUE"] = "42";
  options.unsetEnvironment = {"HOME"};
  options.standardInput = std::string(200000, 'x');  // larger than a pipe buffer
  auto result = tb::runProcess(
      {"sh", "-c", "printf '%s:%s:' \"$TB_TEST_VALUE\" \"${HOME-unset}\"; wc -c"}, options);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->standardOutput, "42:unset:200000\n");
}

TEST(Subprocess, LargeOutputDoesNotDeadlock) {
  auto result = tb::runProcess({"sh", "-c", "head -c 1000000 /dev/zero; head -c 300000 /dev/zero >&2"});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->standardOutput.size(), 1000000U);
  EXPECT_EQ(result->standardError.size(), 300000U);
}

// The watched shape: output to a log file, stopped by SIGTERM, killed after
// the grace when SIGTERM is ignored.
class WatchedProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tb-watched-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    options_.logFile = dir_ / "output.log";
    options_.tick = 10ms;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string log() const {
    std::ifstream in(options_.logFile);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::filesystem::path dir_;
  tb::WatchOptions options_;
};

TEST_F(WatchedProcess, BothStreamsGoToTheLogAndTheExitCodeIsKept) {
  int ticks = 0;
  auto outcome = tb::runWatchedProcess({"/bin/sh", "-c", "echo out; echo err >&2; sleep 0.1; exit 3"},
                                       options_, tb::StopToken(), [&ticks] { ++ticks; });
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(outcome->exitCode, 3);
  EXPECT_FALSE(outcome->stopRequested);
  EXPECT_EQ(log(), "out\nerr\n");
  EXPECT_GT(ticks, 0);
}

TEST_F(WatchedProcess, AStopSendsSigtermWhichAChildMayHandle) {
  // Stopped only once the shell says its trap is set, or SIGTERM could win the race.
  const tb::StopSource stop;
  auto outcome = tb::runWatchedProcess(
      {"/bin/sh", "-c", "trap 'echo stopped; exit 5' TERM; echo ready; while :; do sleep 0.05; done"},
      options_, stop.token(), [&] {
        if (log() == "ready\n") stop.requestStop();
      });
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_TRUE(outcome->stopRequested);
  EXPECT_EQ(outcome->exitCode, 5);
  EXPECT_EQ(log(), "ready\nstopped\n");
}

TEST_F(WatchedProcess, AChildThatIgnoresTheStopIsKilledAfterTheGrace) {
  options_.stopGrace = 200ms;
  const tb::StopSource stop;
  const auto started = std::chrono::steady_clock::now();
  // exec: the ignored SIGTERM carries over to sleep, which SIGKILL then ends.
  auto outcome = tb::runWatchedProcess(
      {"/bin/sh", "-c", "trap '' TERM; echo ready; exec sleep 30"}, options_, stop.token(), [&] {
        if (log() == "ready\n") stop.requestStop();
      });
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(outcome->signal, SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
}

TEST_F(WatchedProcess, AProgramThatCannotStartIsAnErrorNamingIt) {
  auto outcome = tb::runWatchedProcess({"/no/such/tb-program"}, options_, tb::StopToken());
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(outcome.error().message.find("/no/such/tb-program"), std::string::npos);
}

}  // namespace
