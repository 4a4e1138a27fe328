#include "tb/common/subprocess.hpp"

#include <gtest/gtest.h>

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

}  // namespace
