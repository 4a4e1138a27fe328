// `trainbench memory --calibrate DIR`: the completed CPU runs of a run store,
// trained here through the real binary, are the measurements; a run that ran
// out of memory measured its budget, not its configuration, and is left out.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>
#include <unistd.h>

#include "cli_runner.hpp"

namespace {

using tb::cli::test::parseSingleDocument;
using tb::cli::test::runCli;

TEST(CliMemoryCalibrateRuns, TheRunStoresCompletedRunsAreTheMeasurements) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tb-cli-calibrate-runs-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::map<std::string, std::string> env{{"XDG_DATA_HOME", (dir / "data").string()},
                                               {"XDG_CONFIG_HOME", (dir / "config").string()}};
  const std::vector<std::vector<std::string>> completed{
      {"--recompute", "none"}, {"--recompute", "full"}, {"--batch", "2"}};
  for (const auto& flags : completed) {
    std::vector<std::string> argv{"run", "--model", "tiny", "--steps", "1", "--threads", "1"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const auto run = runCli(argv, env);
    ASSERT_EQ(run.exitCode, 0) << run.err;
  }
  const auto oom = runCli(
      {"run", "--model", "tiny", "--steps", "1", "--threads", "1", "--memory-budget", "1000000"},
      env);
  ASSERT_EQ(oom.exitCode, 1) << oom.err;

  const auto store = dir / "data" / "trainbench" / "runs";
  const auto fit = runCli({"memory", "--calibrate", store.string(), "--json"}, env);
  ASSERT_EQ(fit.exitCode, 0) << fit.err;
  const auto engine = parseSingleDocument(fit)["profiles"]["engine"];
  EXPECT_EQ(engine["points"], 3);
  // The engine profile predicts these runs within a few per cent (docs/PERF.md);
  // a run read as another configuration would be off by far more.
  EXPECT_LT(engine["max_error_before"].get<double>(), 0.05) << engine.dump();
  EXPECT_LE(engine["max_error_after"].get<double>(), engine["max_error_before"].get<double>());
  EXPECT_TRUE(std::filesystem::exists(dir / "config" / "trainbench" / "memory-calibration.json"));

  // A store with no completed run is bad input naming the directory.
  const auto empty = runCli({"memory", "--calibrate", (dir / "config").string()}, env);
  EXPECT_EQ(empty.exitCode, 2);
  EXPECT_NE(empty.err.find((dir / "config").string()), std::string::npos) << empty.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
