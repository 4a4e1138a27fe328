// The tuned runtime end to end on `tiny`: the same loss trajectory as the
// stock runtime (it changes speed, never math), per-step sequence lengths,
// step events written in bursts at log intervals under lazy sync, the new
// summary fields, and checkpoints written from flat buffers that resume.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "tb/engine/trainer.hpp"
#include "training/token_batches.hpp"

namespace {

using tb::engine::RunConfig;
using tb::engine::RunSummary;
using tb::runs::RunState;

constexpr double kTrajectoryTolerance = 1e-4;

RunConfig tinyRun(const std::string& name, std::int64_t steps, const std::string& runtime) {
  RunConfig config;
  config.model = *tb::model::findPreset("tiny");
  config.steps = steps;
  config.threads = 1;
  config.runtime = *tb::engine::parseRuntime(runtime);
  config.runDir = std::filesystem::temp_directory_path() / ("tb_runtime_" + name);
  std::filesystem::remove_all(config.runDir);
  return config;
}

RunSummary run(const RunConfig& config) {
  auto summary = tb::engine::runTraining(config);
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  return summary.ok() ? *summary : RunSummary{};
}

std::vector<nlohmann::json> stepEvents(const std::filesystem::path& dir) {
  std::vector<nlohmann::json> events;
  std::ifstream in(dir / "events.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto event = nlohmann::json::parse(line);
    if (event.at("event") == "step") events.push_back(std::move(event));
  }
  return events;
}

void expectSameTrajectory(const RunSummary& a, const RunSummary& b, std::size_t steps) {
  ASSERT_EQ(a.losses.size(), steps);
  ASSERT_EQ(b.losses.size(), steps);
  for (std::size_t i = 0; i < steps; ++i) {
    EXPECT_NEAR(b.losses[i], a.losses[i], kTrajectoryTolerance * std::abs(a.losses[i]))
        << "step " << i + 1;
  }
}

TEST(TunedRuntime, FollowsTheStockLossTrajectoryForThirtySteps) {
  const RunSummary stock = run(tinyRun("stock30", 30, "stock"));
  const RunSummary tuned = run(tinyRun("tuned30", 30, "tuned"));
  EXPECT_EQ(stock.state, RunState::Completed);
  EXPECT_EQ(tuned.state, RunState::Completed);
  expectSameTrajectory(stock, tuned, 30);
  EXPECT_EQ(stock.runtime, "stock");
  EXPECT_EQ(tuned.runtime, "tuned");
  EXPECT_EQ(stock.matmulPath, "aten");
  EXPECT_TRUE(tuned.matmulPath == "aten" || tuned.matmulPath == "onednn") << tuned.matmulPath;
}

TEST(TunedRuntime, TheDirectOneDnnPathAloneKeepsTheTrajectory) {
  // tiny's products are small enough that the probe may pick either path, so
  // force each side: the flat-buffer stock run against one on oneDNN.
  RunConfig aten = tinyRun("aten12", 12, "stock,+flat-grads");
  RunConfig tuned = tinyRun("onednn12", 12, "stock,+flat-grads,+matmul");
  const RunSummary a = run(aten);
  const RunSummary b = run(tuned);
  expectSameTrajectory(a, b, 12);
}

TEST(TunedRuntime, SummaryJsonCarriesRuntimeCompileAndMatmulPath) {
  const RunConfig config = tinyRun("summary", 2, "tuned,-sync");
  (void)run(config);
  std::ifstream in(config.runDir / "summary.json");
  const auto summary = nlohmann::json::parse(in);
  EXPECT_EQ(summary.at("runtime"), "tuned,-sync");
  EXPECT_EQ(summary.at("compile"), false);
  EXPECT_TRUE(summary.at("matmul_path").is_string());
  EXPECT_TRUE(summary.contains("tokens_per_s"));  // an existing field stays
}

TEST(TunedRuntime, StartEventReportsTheProbeOfEveryPath) {
  const RunConfig config = tinyRun("probe", 1, "tuned");
  (void)run(config);
  std::ifstream in(config.runDir / "events.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  const auto start = nlohmann::json::parse(line);
  ASSERT_EQ(start.at("event"), "start");
  const auto& probe = start.at("matmul_probe");
  EXPECT_GT(probe.at("gflops").at("aten").get<double>(), 0.0);
  EXPECT_GT(probe.at("gflops").at("onednn").get<double>(), 0.0);
  const double best = std::max(probe.at("gflops").at("aten").get<double>(),
                               probe.at("gflops").at("onednn").get<double>());
  EXPECT_GE(probe.at("peak_gflops").get<double>(), best);  // MFU never divides by less
  EXPECT_GE(start.at("matmul_gflops").get<double>(), best);
}

TEST(TunedRuntime, EachStepTrainsOnItsDrawnSequenceLength) {
  RunConfig config = tinyRun("seqrange", 8, "tuned");
  config.seqMin = 16;
  config.seqMax = 48;
  const RunSummary summary = run(config);
  const auto events = stepEvents(config.runDir);
  ASSERT_EQ(events.size(), 8U);
  std::set<std::int64_t> lengths;
  for (const auto& event : events) {
    const auto step = event.at("step").get<std::int64_t>();
    const auto seq = event.at("seq").get<std::int64_t>();
    EXPECT_EQ(seq, tb::engine::stepSequenceLength(config.seed, step, 16, 48));
    const double tokens =
        event.at("tokens_per_s").get<double>() * event.at("step_time_s").get<double>();
    EXPECT_NEAR(tokens, static_cast<double>(config.model.batch * seq), 1e-6 * tokens);
    lengths.insert(seq);
  }
  EXPECT_GT(lengths.size(), 1U);
  EXPECT_EQ(summary.state, RunState::Completed);
}

/// Times at which the event sink saw each step event.
std::vector<double> stepArrivals(RunConfig& config) {
  std::vector<double> arrivals;
  const auto origin = std::chrono::steady_clock::now();
  config.events = [&](const std::string& line) {
    if (nlohmann::json::parse(line).at("event") == "step") {
      const std::chrono::duration<double> at = std::chrono::steady_clock::now() - origin;
      arrivals.push_back(at.count());
    }
  };
  (void)run(config);
  return arrivals;
}

TEST(TunedRuntime, LazySyncWritesAnIntervalsStepEventsTogether) {
  RunConfig lazy = tinyRun("lazy", 10, "tuned");
  lazy.logEvery = 4;
  const std::vector<double> arrivals = stepArrivals(lazy);
  ASSERT_EQ(arrivals.size(), 10U);  // every step still has its event (4 + 4 + the last 2)
  const auto events = stepEvents(lazy.runDir);
  ASSERT_EQ(events.size(), 10U);
  double stepsTwoToFour = 0.0;
  for (std::size_t i = 1; i < 4; ++i) stepsTwoToFour += events[i].at("step_time_s").get<double>();
  // Steps 1-4 are reported together after step 4: far closer than the steps took.
  EXPECT_LT(arrivals[3] - arrivals[0], 0.5 * stepsTwoToFour);
  // Step 5's event waits for step 8: at least steps 5-8 of training in between.
  EXPECT_GT(arrivals[4] - arrivals[3], events[4].at("step_time_s").get<double>());

  RunConfig eager = tinyRun("eager", 5, "tuned,-sync");
  const std::vector<double> eagerArrivals = stepArrivals(eager);
  const auto eagerEvents = stepEvents(eager.runDir);
  ASSERT_EQ(eagerArrivals.size(), 5U);
  double eagerStepsTwoToFour = 0.0;
  for (std::size_t i = 1; i < 4; ++i) {
    eagerStepsTwoToFour += eagerEvents[i].at("step_time_s").get<double>();
  }
  EXPECT_GE(eagerArrivals[3] - eagerArrivals[0], eagerStepsTwoToFour);
}

TEST(TunedRuntime, ACheckpointSavedFromFlatBuffersResumesBothRuntimes) {
  const RunSummary straight = run(tinyRun("flat-straight", 6, "tuned,-matmul"));
  RunConfig first = tinyRun("flat-first", 3, "tuned,-matmul");
  first.saveEvery = 3;
  (void)run(first);
  ASSERT_TRUE(std::filesystem::exists(first.runDir / "checkpoint.tbck"));
  for (const std::string runtime : {"tuned,-matmul", "stock"}) {
    RunConfig second = tinyRun("flat-second", 6, runtime);
    second.resumeDir = first.runDir;
    const RunSummary resumed = run(second);
    ASSERT_EQ(resumed.losses.size(), 3U) << runtime;
    EXPECT_EQ(resumed.firstStep, 4);
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_NEAR(resumed.losses[i], straight.losses[i + 3],
                  kTrajectoryTolerance * straight.losses[i + 3])
          << runtime << ", step " << i + 4;
    }
  }
}

}  // namespace
