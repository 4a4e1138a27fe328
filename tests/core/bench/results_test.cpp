// results.json is read by reports, the GUI and later versions of the tool:
// it must round-trip exactly, and a damaged file must be refused with the
// JSON path of the damage.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "tb/bench/ablation.hpp"
#include "tb/bench/results.hpp"
#include "tb/common/atomic_file.hpp"

namespace tb::bench {
namespace {

RunMeasurement run(int repeat, double tokens, runs::RunState state = runs::RunState::Completed) {
  RunMeasurement m;
  m.repeat = repeat;
  m.state = state;
  m.tokensPerS = tokens;
  m.stepTimeS = 1024.0 / tokens;
  m.peakBytes = 1'000'000u + static_cast<std::uint64_t>(repeat) * 1000u;
  m.mfu = 0.2;
  m.lossFirst = 8.3;
  m.lossLast = 8.1;
  m.runDir = "/runs/" + std::to_string(repeat);
  return m;
}

AblationResults sampleResults() {
  AblationResults results;
  results.appVersion = "0.1.0";
  results.createdAt = "2026-11-29T18:30:00Z";
  results.model = "small";
  results.steps = 30;
  results.warmupSteps = 5;
  results.repeats = 3;
  results.memoryBudgetBytes = 3'000'000'000u;
  results.imageTag = "25.10";
  results.machine = {"Intel Xeon", 2, 2, "mkldnn", "1.13.1", "cpu"};
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> jitter(0.9, 1.1);
  double speed = 100.0;
  for (const AblationStep step : kAblationSteps) {
    ConfigurationResult config;
    config.label = std::string(label(step));
    config.model = "small";
    for (int r = 0; r < 3; ++r) config.runs.push_back(run(r, speed * jitter(rng)));
    config.runs.push_back(run(3, 1.0, runs::RunState::Oom));
    config.lossCurve = {8.3, 8.2, 8.1};
    config.stepTimes = {10.1, 10.3, 9.9};
    EXPECT_TRUE(summarizeRuns(config).ok());
    results.configurations.push_back(config);
    speed *= 1.3;
  }
  return results;
}

TEST(Results, SummariesIgnoreRunsThatFailed) {
  const AblationResults results = sampleResults();
  const ConfigurationResult& base = results.configurations.front();
  EXPECT_EQ(base.throughput.count, 3u);
  EXPECT_GT(base.throughput.min, 80.0);
  EXPECT_EQ(base.peakBytes, 1'002'000u);
}

TEST(Results, NoSuccessfulRunIsAnError) {
  ConfigurationResult config;
  config.label = "AC2";
  config.runs.push_back(run(0, 5.0, runs::RunState::Oom));
  const Status status = summarizeRuns(config);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("AC2"), std::string::npos);
}

TEST(Results, JsonRoundTripKeepsEveryField) {
  const AblationResults original = sampleResults();
  const std::string json = resultsToJson(original);
  const auto parsed = parseResults(json, "results.json");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(resultsToJson(*parsed), json);
  EXPECT_EQ(parsed->machine.matmulPath, "mkldnn");
  ASSERT_EQ(parsed->configurations.size(), 4u);
  EXPECT_EQ(parsed->configurations[2].label, "AC2+CompilerOpt");
  EXPECT_EQ(parsed->configurations[0].runs[3].state, tb::runs::RunState::Oom);
  EXPECT_EQ(parsed->configurations[0].throughput, original.configurations[0].throughput);
}

TEST(Results, SaveAndLoadThroughAFile) {
  const auto dir = std::filesystem::temp_directory_path() / "tb_results_test";
  std::filesystem::remove_all(dir);
  const auto path = dir / "results.json";
  ASSERT_TRUE(saveResults(path, sampleResults()).ok());
  const auto loaded = loadResults(path);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->model, "small");
  std::filesystem::remove_all(dir);
}

/// The sample results with the first `needle` replaced, or empty if it is not there.
std::string damagedSample(const std::string& needle, const std::string& replacement) {
  std::string json = resultsToJson(sampleResults());
  const auto at = json.find(needle);
  if (at == std::string::npos) return {};
  return json.replace(at, needle.size(), replacement);
}

TEST(Results, DamageIsReportedWithItsJsonPath) {
  const std::string json = damagedSample("\"label\": \"AC2\"", "\"label\": \"AC3\"");
  ASSERT_FALSE(json.empty());
  const auto parsed = parseResults(json, "bad.json");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().kind, ErrorKind::Parse);
  EXPECT_NE(parsed.error().message.find("bad.json: $.configurations[1].label"), std::string::npos)
      << parsed.error().message;
}

// Found by the results fuzzer: a whole number too large for the int it is
// read into passed the schema's "integer" and overflowed the conversion.
TEST(Results, IntegersTooLargeForTheirFieldAreRefusedWithTheirPath) {
  const std::string json = damagedSample("\"repeat\": 1", "\"repeat\": 2.5e117");
  ASSERT_FALSE(json.empty());
  const auto parsed = parseResults(json, "big.json");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().message.find("big.json: $.configurations[0].runs[1].repeat"),
            std::string::npos)
      << parsed.error().message;
  EXPECT_NE(parsed.error().message.find("above the maximum"), std::string::npos)
      << parsed.error().message;
}

TEST(Results, NotJsonAndMissingFilesAreRefused) {
  const auto garbage = parseResults("{ nope", "x.json");
  ASSERT_FALSE(garbage);
  EXPECT_NE(garbage.error().message.find("x.json: not valid JSON"), std::string::npos);
  const auto missing = loadResults("/nonexistent/results.json");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/nonexistent/results.json"), std::string::npos);
}

TEST(Results, APartialFileSaysSoAndRoundTrips) {
  AblationResults partial = sampleResults();
  partial.complete = false;
  partial.plannedRuns = 12;
  partial.completedRuns = 7;
  const std::string json = resultsToJson(partial);
  EXPECT_NE(json.find("\"complete\": false"), std::string::npos) << json;
  EXPECT_NE(json.find("\"planned_runs\": 12"), std::string::npos);
  EXPECT_NE(json.find("\"completed_runs\": 7"), std::string::npos);
  const auto parsed = parseResults(json, "partial.json");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_FALSE(parsed->complete);
  EXPECT_EQ(parsed->plannedRuns, 12);
  EXPECT_EQ(parsed->completedRuns, 7);
  EXPECT_EQ(resultsToJson(*parsed), json);
  EXPECT_EQ(partialNote(*parsed), "partial: 7 of 12 runs completed");
  EXPECT_EQ(partialNote(sampleResults()), "");
}

// Files written before the flag existed are judged by the runs they hold.
TEST(Results, AFileWithoutTheFlagIsJudgedByItsRuns) {
  AblationResults results = sampleResults();
  results.repeats = 4;  // 16 planned; 3 of each configuration's 4 runs ended ok
  std::string json = resultsToJson(results);
  const auto from = json.find("  \"complete\"");
  const auto to = json.find("  \"machine\"");
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos && from < to);
  json.erase(from, to - from);
  const auto parsed = parseResults(json, "old.json");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_FALSE(parsed->complete);
  EXPECT_EQ(parsed->plannedRuns, 16);
  EXPECT_EQ(parsed->completedRuns, 12);
  EXPECT_EQ(partialNote(*parsed), "partial: 12 of 16 runs completed");
}

TEST(Results, CompletenessCountsEngineRunsThatEndedOk) {
  AblationResults results = sampleResults();
  results.plannedRuns = 12;
  ConfigurationResult cluster = results.configurations.front();
  cluster.source = ResultSource::Cluster;  // imported: not part of the engine's plan
  results.configurations.push_back(cluster);
  updateCompleteness(results);
  EXPECT_TRUE(results.complete);
  EXPECT_EQ(results.completedRuns, 12);
  results.configurations.front().runs.front().state = tb::runs::RunState::Interrupted;
  updateCompleteness(results);
  EXPECT_FALSE(results.complete);
  EXPECT_EQ(partialNote(results), "partial: 11 of 12 runs completed");
}

TEST(Results, ANonBooleanCompleteIsRefusedWithItsPath) {
  std::string json = resultsToJson(sampleResults());
  const std::string needle = "\"complete\": true";
  ASSERT_NE(json.find(needle), std::string::npos);
  json.replace(json.find(needle), needle.size(), "\"complete\": \"no\"");
  const auto parsed = parseResults(json, "bad.json");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().message.find("bad.json: $.complete"), std::string::npos)
      << parsed.error().message;
}

TEST(Results, ChainOrderPutsBaseFirstAndEngineBeforeCluster) {
  std::vector<ConfigurationResult> configs(4);
  configs[0].label = "AC2+CompilerOpt+CkptOpt";
  configs[1].label = "AC2";
  configs[1].source = ResultSource::Cluster;
  configs[2].label = "AC2";
  configs[3].label = "Base";
  const auto ordered = inChainOrder(configs);
  EXPECT_EQ(ordered[0].label, "Base");
  EXPECT_EQ(ordered[1].label, "AC2");
  EXPECT_EQ(ordered[1].source, ResultSource::Engine);
  EXPECT_EQ(ordered[2].source, ResultSource::Cluster);
  EXPECT_EQ(ordered[3].label, "AC2+CompilerOpt+CkptOpt");
}

}  // namespace
}  // namespace tb::bench
