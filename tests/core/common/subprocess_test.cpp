#include "tb/common/subprocess.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
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
  auto result =
      tb::runProcess({"sh", "-c", "head -c 1000000 /dev/zero; head -c 300000 /dev/zero >&2"});
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
  auto outcome =
      tb::runWatchedProcess({"/bin/sh", "-c", "echo out; echo err >&2; sleep 0.1; exit 3"},
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
      {"/bin/sh", "-c",
       "trap 'echo stopped; exit 5' TERM; echo ready; while :; do sleep 0.05; done"},
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
  auto outcome = tb::runWatchedProcess({"/bin/sh", "-c", "trap '' TERM; echo ready; exec sleep 30"},
                                       options_, stop.token(), [&] {
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

// The group shape: members live and die together. Members that must not be
// stopped too early wait for a file another member creates once it is ready,
// so no test relies on one shell being faster than another.
class ProcessGroup : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tb-group-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    ready_ = (dir_ / "ready").string();
    options_.tick = 10ms;
    options_.stopGrace = 5s;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static tb::GroupMember shell(const std::string& script) {
    return tb::GroupMember{{"/bin/sh", "-c", script}, {}};
  }
  // A script line that waits until `ready_` exists.
  std::string waitForReady() const {
    return "while [ ! -e '" + ready_ + "' ]; do sleep 0.01; done; ";
  }
  std::string markReady() const { return ": > '" + ready_ + "'; "; }

  std::filesystem::path dir_;
  std::string ready_;
  tb::GroupOptions options_;
};

TEST_F(ProcessGroup, LinesArriveInOrderPerMemberAndStream) {
  std::vector<std::vector<std::string>> out(2), err(2);
  options_.onStdoutLine = [&](std::size_t member, std::string_view line) {
    out.at(member).emplace_back(line);
  };
  options_.onStderrLine = [&](std::size_t member, std::string_view line) {
    err.at(member).emplace_back(line);
  };
  auto outcome = tb::runProcessGroup({shell("echo a; echo b >&2; echo; printf c; exit 0"),
                                      shell("echo x; printf 'y\\nz'; printf e >&2; exit 0")},
                                     options_, tb::StopToken());
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_EQ(outcome->exits.size(), 2U);
  for (const auto& exit : outcome->exits) {
    EXPECT_FALSE(exit.failed());
    EXPECT_EQ(exit.exitCode, 0);
  }
  EXPECT_FALSE(outcome->firstFailure.has_value());
  EXPECT_FALSE(outcome->stopRequested);
  EXPECT_EQ(out[0], (std::vector<std::string>{"a", "", "c"}));
  EXPECT_EQ(err[0], (std::vector<std::string>{"b"}));
  EXPECT_EQ(out[1], (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(err[1], (std::vector<std::string>{"e"}));
}

TEST_F(ProcessGroup, AFailingMemberStopsTheOthersWithSigterm) {
  std::vector<std::string> lines;
  options_.onStdoutLine = [&](std::size_t member, std::string_view line) {
    lines.push_back(std::to_string(member) + ":" + std::string(line));
  };
  const auto started = std::chrono::steady_clock::now();
  auto outcome = tb::runProcessGroup({shell("exec sleep 30"), shell("echo failing; exit 3")},
                                     options_, tb::StopToken());
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  ASSERT_TRUE(outcome->firstFailure.has_value());
  EXPECT_EQ(*outcome->firstFailure, 1U);
  EXPECT_EQ(outcome->exits[1].exitCode, 3);
  EXPECT_EQ(outcome->exits[0].signal, SIGTERM);
  EXPECT_FALSE(outcome->stopRequested);
  EXPECT_EQ(lines, (std::vector<std::string>{"1:failing"}));
}

TEST_F(ProcessGroup, AMemberThatIgnoresSigtermIsKilledAfterTheGrace) {
  options_.stopGrace = 300ms;
  const auto started = std::chrono::steady_clock::now();
  // exec: the ignored SIGTERM carries over to sleep, which SIGKILL then ends.
  auto outcome = tb::runProcessGroup(
      {shell("trap '' TERM; " + markReady() + "exec sleep 30"), shell(waitForReady() + "exit 1")},
      options_, tb::StopToken());
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
  EXPECT_EQ(outcome->firstFailure, std::optional<std::size_t>(1));
  EXPECT_EQ(outcome->exits[0].signal, SIGKILL);
}

TEST_F(ProcessGroup, AStoppedMemberIsWokenToActOnSigterm) {
  // The grace is long: only SIGCONT lets the stopped shell end by SIGTERM in time.
  options_.stopGrace = 20s;
  const auto started = std::chrono::steady_clock::now();
  auto outcome = tb::runProcessGroup({shell(markReady() + "kill -STOP $$; exec sleep 30"),
                                      shell(waitForReady() + "sleep 0.2; exit 1")},
                                     options_, tb::StopToken());
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  EXPECT_EQ(outcome->firstFailure, std::optional<std::size_t>(1));
  EXPECT_EQ(outcome->exits[0].signal, SIGTERM);
}

TEST_F(ProcessGroup, AStopEndsEveryMemberAndIsNotAFailure) {
  const tb::StopSource stop;
  std::thread requester([&stop] {
    std::this_thread::sleep_for(200ms);
    stop.requestStop();
  });
  const auto started = std::chrono::steady_clock::now();
  auto outcome =
      tb::runProcessGroup({shell("exec sleep 30"), shell("exec sleep 30")}, options_, stop.token());
  requester.join();
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  EXPECT_TRUE(outcome->stopRequested);
  EXPECT_FALSE(outcome->firstFailure.has_value());
  for (const auto& exit : outcome->exits) EXPECT_EQ(exit.signal, SIGTERM);
}

TEST_F(ProcessGroup, AMemberThatCannotStartIsAnErrorAndStopsTheStartedOnes) {
  const auto started = std::chrono::steady_clock::now();
  auto outcome =
      tb::runProcessGroup({shell("exec sleep 30"), tb::GroupMember{{"/no/such/tb-program"}, {}}},
                          options_, tb::StopToken());
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().kind, tb::ErrorKind::NotFound);
  EXPECT_NE(outcome.error().message.find("/no/such/tb-program"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
}

TEST_F(ProcessGroup, AMemberSeesItsEnvironment) {
  std::vector<std::string> lines;
  options_.onStdoutLine = [&](std::size_t member, std::string_view line) {
    lines.push_back(std::to_string(member) + ":" + std::string(line));
  };
  tb::GroupMember member = shell("echo \"${TB_GROUP_TEST-unset}\"");
  member.environment["TB_GROUP_TEST"] = "rank1";
  auto outcome = tb::runProcessGroup({shell("echo \"${TB_GROUP_TEST-unset}\""), member}, options_,
                                     tb::StopToken());
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"0:unset", "1:rank1"}));
}

TEST_F(ProcessGroup, AGrandchildHoldingThePipesDoesNotHoldTheCall) {
  // The background sleep keeps stdout and stderr open after its shell exits.
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::string> lines;
  options_.onStdoutLine = [&](std::size_t, std::string_view line) { lines.emplace_back(line); };
  auto outcome =
      tb::runProcessGroup({shell("sleep 3 & echo started; exit 0")}, options_, tb::StopToken());
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
  EXPECT_EQ(outcome->exits[0].exitCode, 0);
  EXPECT_EQ(lines, (std::vector<std::string>{"started"}));
}

TEST(ProcessGroupInput, AnEmptyGroupOrArgvIsBadInput) {
  auto none = tb::runProcessGroup({}, {}, tb::StopToken());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().kind, tb::ErrorKind::BadInput);
  auto empty = tb::runProcessGroup({tb::GroupMember{{"/bin/true"}, {}}, tb::GroupMember{}}, {},
                                   tb::StopToken());
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().kind, tb::ErrorKind::BadInput);
  EXPECT_EQ(empty.error().message, "no program to run");
}

}  // namespace
