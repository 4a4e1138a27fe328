// `trainbench run --recompute` through the real binary: bad policies exit 2
// naming the value, CHECKPOINT_OPTIMIZATION=true means auto as in the image
// unless --recompute is given, and the start event and the summary record
// the policy actually used. Budgets come from `trainbench memory`, so the
// test follows the predictor instead of hard-coding byte counts.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"

namespace {

using tb::cli::test::parseSingleDocument;
using tb::cli::test::runCli;

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("tb_cli_run_recompute_" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

std::map<std::string, std::string> environment(const std::string& checkpointOptimization) {
  return {{"CHECKPOINT_OPTIMIZATION", checkpointOptimization}, {"XDG_DATA_HOME", scratch("xdg")}};
}

std::uint64_t predictedPeak(const std::string& policy) {
  const auto run = runCli({"memory", "--model", "tiny", "--recompute", policy, "--json"});
  EXPECT_EQ(run.exitCode, 0) << run.err;
  return parseSingleDocument(run)["total_bytes"].get<std::uint64_t>();
}

// Halfway between the full-recompute and the no-recompute peak of `tiny`.
std::string tightBudget() {
  const std::uint64_t none = predictedPeak("none");
  const std::uint64_t full = predictedPeak("full");
  EXPECT_LT(full, none);
  return std::to_string(full + (none - full) / 2);
}

nlohmann::json startEvent(const std::string& runDir) {
  std::ifstream events(std::filesystem::path(runDir) / "events.jsonl");
  std::string first;
  std::getline(events, first);
  return nlohmann::json::parse(first);
}

TEST(CliRunRecompute, UnknownPolicyExitsTwoNamingIt) {
  const auto run = runCli({"run", "--model", "tiny", "--steps", "1", "--recompute", "sometimes"},
                          environment("false"));
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_NE(run.err.find("'sometimes'"), std::string::npos) << run.err;
}

TEST(CliRunRecompute, LayersPastTheModelExitTwoNamingThem) {
  const auto run = runCli({"run", "--model", "tiny", "--steps", "1", "--recompute", "layers:9"},
                          environment("false"));
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_NE(run.err.find("layers:9"), std::string::npos) << run.err;
}

TEST(CliRunRecompute, CheckpointOptimizationTrueMeansAutoAndFitsTheBudget) {
  const std::string budget = tightBudget();
  const std::string dir = scratch("env_auto");
  const auto run = runCli({"run", "--model", "tiny", "--steps", "2", "--threads", "1",
                           "--memory-budget", budget, "--json", "--run-dir", dir},
                          environment("true"));
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto summary = parseSingleDocument(run);
  EXPECT_EQ(summary["status"], "completed");
  const std::string used = summary["recompute"];
  EXPECT_NE(used, "none");
  EXPECT_NE(used, "auto");
  EXPECT_LE(summary["peak_bytes"].get<std::uint64_t>(), std::stoull(budget));
  const auto start = startEvent(dir);
  EXPECT_EQ(start["event"], "start");
  EXPECT_EQ(start["recompute"]["requested"], "auto");
  EXPECT_EQ(start["recompute"]["policy"], used);
  EXPECT_EQ(start["config"]["recompute"], "auto");
}

TEST(CliRunRecompute, AutoPicksWhatPlanRecommendsForTheSameBudget) {
  // Both ask the same planner about the same runtime (run's default, tuned),
  // so the Memory page's and `plan`'s advice is what `run` then does. The
  // budget is whole MiB, which --gpu-memory spells exactly in GiB.
  const std::uint64_t budget = std::stoull(tightBudget()) >> 20 << 20;
  char gib[32];
  std::snprintf(gib, sizeof(gib), "%.10f", static_cast<double>(budget) / (1ull << 30));
  const auto plan =
      runCli({"plan", "--model", "tiny", "--gpu-memory", gib, "--no-calibration", "--json"},
             environment("false"));
  ASSERT_EQ(plan.exitCode, 0) << plan.err;
  const auto advice = parseSingleDocument(plan);
  ASSERT_EQ(advice["budget_bytes"].get<std::uint64_t>(), budget);
  const auto run = runCli(
      {"run", "--model", "tiny", "--steps", "1", "--threads", "1", "--recompute", "auto",
       "--memory-budget", std::to_string(budget), "--json", "--run-dir", scratch("plan_agrees")},
      environment("false"));
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_EQ(parseSingleDocument(run)["recompute"], advice["policy"]);
  EXPECT_EQ(advice["runtime"], "tuned");
}

TEST(CliRunRecompute, AnExplicitPolicyWinsOverCheckpointOptimization) {
  const auto run =
      runCli({"run", "--model", "tiny", "--steps", "1", "--threads", "1", "--memory-budget",
              tightBudget(), "--recompute", "none", "--json", "--run-dir", scratch("env_override")},
             environment("true"));
  EXPECT_EQ(run.exitCode, 1) << run.err;
  const auto summary = parseSingleDocument(run);
  EXPECT_EQ(summary["recompute"], "none");
  EXPECT_EQ(summary["status"], "oom");
}

TEST(CliRunRecompute, WithoutTheVariableNothingIsRecomputed) {
  const auto run = runCli({"run", "--model", "tiny", "--steps", "1", "--threads", "1", "--json",
                           "--run-dir", scratch("env_unset")},
                          environment(""));
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_EQ(parseSingleDocument(run)["recompute"], "none");
}

TEST(CliRunRecompute, AnUnreadableCheckpointOptimizationExitsTwoNamingIt) {
  const auto run = runCli({"run", "--model", "tiny", "--steps", "1"}, environment("maybe"));
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_NE(run.err.find("CHECKPOINT_OPTIMIZATION"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("'maybe'"), std::string::npos) << run.err;
}

TEST(CliRunRecompute, AutoWithABudgetNothingFitsExitsTwoWithTheLeastThatWould) {
  const auto run = runCli(
      {"run", "--model", "tiny", "--steps", "1", "--recompute", "auto", "--memory-budget", "4096"},
      environment("false"));
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_NE(run.err.find("least budget that fits"), std::string::npos) << run.err;
}

}  // namespace
