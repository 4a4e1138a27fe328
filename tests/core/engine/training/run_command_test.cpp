// `trainbench run` as scripts and the GUI use it: the real binary in a child
// process, checked for its exit codes, its one JSON document, the event
// stream on stdout, and messages that name the bad value.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "trainbench_child.hpp"

namespace {

constexpr const char* kPrefix = "tb_run_command_";

tb::ProcessResult trainbench(std::vector<std::string> arguments) {
  return tb::engine::test::runTrainbench(std::move(arguments), kPrefix);
}

std::string scratch(const std::string& name) {
  return tb::engine::test::scratchDirectory(kPrefix, name);
}

TEST(RunCommand, JsonPrintsOneSummaryWithTheContractFields) {
  const auto result = trainbench({"run", "--model", "tiny", "--steps", "3", "--threads", "1",
                                  "--json", "--run-dir", scratch("json")});
  ASSERT_EQ(result.exitCode, 0) << result.standardError;
  const auto summary = nlohmann::json::parse(result.standardOutput);
  for (const char* field : {"status", "steps", "params", "tokens_per_s", "step_time_s",
                            "peak_bytes", "loss_first", "loss_last", "mfu", "threads", "device"}) {
    EXPECT_TRUE(summary.contains(field)) << field;
  }
  EXPECT_EQ(summary["status"], "completed");
  EXPECT_EQ(summary["steps"], 3);
  EXPECT_EQ(summary["threads"], 1);
}

TEST(RunCommand, ModelFlagsOverrideThePresetAndEventsStreamToStdout) {
  const auto result =
      trainbench({"run", "--model", "tiny", "--layers", "1", "--micro-batch", "2", "--steps", "2",
                  "--threads", "1", "--events", "-", "--run-dir", scratch("events")});
  ASSERT_EQ(result.exitCode, 0) << result.standardError;
  std::istringstream lines(result.standardOutput);
  std::vector<nlohmann::json> events;
  for (std::string line; std::getline(lines, line);) events.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(events.size(), 4U);
  EXPECT_EQ(events[0]["event"], "start");
  EXPECT_EQ(events[0]["config"]["model"]["layers"], 1);
  EXPECT_EQ(events[0]["config"]["model"]["batch"], 2);
  EXPECT_EQ(events[3]["event"], "end");
}

TEST(RunCommand, MemoryBudgetEndsWithStatusOomAndExitOne) {
  const std::string dir = scratch("oom");
  const auto result = trainbench({"run", "--steps", "2", "--threads", "1", "--memory-budget",
                                  "1000000", "--json", "--run-dir", dir});
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(nlohmann::json::parse(result.standardOutput)["status"], "oom");
  EXPECT_NE(result.standardError.find("memory budget of 1000000 bytes"), std::string::npos)
      << result.standardError;
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / "events.jsonl"));
}

TEST(RunCommand, BadValuesExitTwoNamingTheValue) {
  auto result = trainbench({"run", "--model", "gpt5", "--steps", "1"});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.standardError.find("gpt5"), std::string::npos);
  result = trainbench({"run", "--kv-heads", "3", "--steps", "1"});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.standardError.find("kv-heads 3"), std::string::npos) << result.standardError;
  result = trainbench({"run", "--device", "tpu"});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.standardError.find("tpu"), std::string::npos);
  result = trainbench({"run", "--events", "-", "--json"});
  EXPECT_EQ(result.exitCode, 2);
}

}  // namespace
