// `trainbench memory --calibrate FILE`: measured peaks fit a per-profile
// correction that is stored in the config directory, reported as the error
// before and after, and applied by the next `memory` run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>
#include <unistd.h>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

struct Scratch {
  std::filesystem::path dir;
  std::map<std::string, std::string> env;
};

Scratch scratch(const std::string& name) {
  Scratch s;
  s.dir = std::filesystem::temp_directory_path() /
          ("tb-cli-calibrate-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(s.dir);
  std::filesystem::create_directories(s.dir);
  s.env = {{"XDG_CONFIG_HOME", (s.dir / "config").string()}};
  return s;
}

std::uint64_t predicted(const Scratch& s, const std::string& batch, const std::string& policy) {
  const CliRun run = runCli(
      {"memory", "--model", "tiny", "--batch", batch, "--recompute", policy, "--json"}, s.env);
  EXPECT_EQ(run.exitCode, 0) << run.err;
  return parseSingleDocument(run)["total_bytes"].get<std::uint64_t>();
}

TEST(CliMemoryCalibrate, FitsStoresReportsAndIsAppliedNext) {
  const Scratch s = scratch("fit");
  // Measurements 1.25x the prediction plus 1 MiB: the fit must recover it.
  nlohmann::json measurements = nlohmann::json::array();
  for (const char* batch : {"1", "4"}) {
    for (const char* policy : {"none", "full"}) {
      const double peak = 1.25 * static_cast<double>(predicted(s, batch, policy)) + 1048576.0;
      measurements.push_back({{"model", "tiny"},
                              {"batch", std::stoi(batch)},
                              {"recompute", policy},
                              {"peak_bytes", static_cast<std::int64_t>(peak)}});
    }
  }
  const auto file = s.dir / "measured.json";
  std::ofstream(file) << nlohmann::json{{"measurements", measurements}}.dump();

  const CliRun run = runCli({"memory", "--calibrate", file.string(), "--json"}, s.env);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto fit = parseSingleDocument(run)["profiles"]["engine"];
  EXPECT_EQ(fit["points"], 4);
  EXPECT_NEAR(fit["scale"].get<double>(), 1.25, 1e-4);
  EXPECT_GT(fit["mean_error_before"].get<double>(), 0.2);
  EXPECT_LT(fit["mean_error_after"].get<double>(), 1e-4);
  EXPECT_TRUE(std::filesystem::exists(s.dir / "config" / "trainbench" / "memory-calibration.json"));

  const CliRun next = runCli({"memory", "--model", "tiny", "--batch", "4", "--json"}, s.env);
  ASSERT_EQ(next.exitCode, 0) << next.err;
  const auto doc = parseSingleDocument(next);
  EXPECT_NEAR(doc["calibration"]["scale"].get<double>(), 1.25, 1e-4);
  EXPECT_NEAR(doc["total_bytes"].get<double>(),
              static_cast<double>(measurements[2]["peak_bytes"].get<std::int64_t>()), 64.0);
}

TEST(CliMemoryCalibrate, EntriesNameTheEngineRuntimeAndStepTheyWereMeasuredOn) {
  // Each entry is predicted as the run it describes: stock or tuned, plain
  // or compiled. Peaks 1.25x those predictions plus 1 MiB fit exactly only
  // if every entry was predicted with its own runtime and step.
  const Scratch s = scratch("runtime");
  const std::vector<std::pair<std::vector<std::string>, nlohmann::json>> jobs = {
      {{}, nlohmann::json::object()},
      {{"--runtime", "stock"}, {{"runtime", "stock"}}},
      {{"--compile", "on"}, {{"compile", true}}},
      {{"--runtime", "tuned,-gqa", "--batch", "4"}, {{"runtime", "tuned,-gqa"}, {"batch", 4}}}};
  nlohmann::json measurements = nlohmann::json::array();
  for (const auto& [flags, keys] : jobs) {
    std::vector<std::string> argv{"memory", "--model", "tiny", "--json"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const CliRun run = runCli(argv, s.env);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const auto bytes = parseSingleDocument(run)["total_bytes"].get<double>();
    nlohmann::json entry = keys;
    entry["model"] = "tiny";
    entry["peak_bytes"] = static_cast<std::int64_t>(1.25 * bytes + 1048576.0);
    measurements.push_back(entry);
  }
  const auto file = s.dir / "measured.json";
  std::ofstream(file) << nlohmann::json{{"measurements", measurements}}.dump();
  const CliRun run = runCli({"memory", "--calibrate", file.string(), "--json"}, s.env);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto fit = parseSingleDocument(run)["profiles"]["engine"];
  EXPECT_NEAR(fit["scale"].get<double>(), 1.25, 1e-4);
  EXPECT_LT(fit["max_error_after"].get<double>(), 1e-4);

  std::ofstream(file) << R"({"measurements": [{"model": "tiny", "profile": "fsdp",
                                               "runtime": "stock", "peak_bytes": 100000}]})";
  const CliRun cluster = runCli({"memory", "--calibrate", file.string()}, s.env);
  EXPECT_EQ(cluster.exitCode, 2);
  EXPECT_NE(cluster.err.find("\"runtime\""), std::string::npos) << cluster.err;
}

TEST(CliMemoryCalibrate, ABadMeasurementIsNamedByItsPosition) {
  const Scratch s = scratch("bad");
  const auto file = s.dir / "measured.json";
  std::ofstream(file) << R"({"measurements": [{"model": "tiny", "peak_bytes": 100000},
                                              {"model": "tiny", "recompute": "sometimes",
                                               "peak_bytes": 100000}]})";
  const CliRun run = runCli({"memory", "--calibrate", file.string()}, s.env);
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_NE(run.err.find("measurement 2"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("'sometimes'"), std::string::npos) << run.err;
  EXPECT_FALSE(
      std::filesystem::exists(s.dir / "config" / "trainbench" / "memory-calibration.json"));
}

TEST(CliMemoryCalibrate, AMissingFileIsBadInputNamingIt) {
  const Scratch s = scratch("missing");
  const CliRun run = runCli({"memory", "--calibrate", "/nonexistent/measured.json"}, s.env);
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_NE(run.err.find("/nonexistent/measured.json"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace tb::cli::test
