// End-to-end runs of the trainer on `tiny`: it learns, it resumes exactly, it
// reports out-of-memory and interruption as statuses with their events on
// disk, and bad input fails before anything is written.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tb/common/atomic_file.hpp"
#include "tb/engine/trainer.hpp"
#include "tb/runs/run_event.hpp"
#include "tb/runs/run_store.hpp"

namespace {

using tb::engine::RunConfig;
using tb::engine::RunSummary;
using tb::runs::RunState;

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("tb_engine_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

RunConfig tinyRun(const std::string& name, std::int64_t steps) {
  RunConfig config;
  config.model = *tb::model::findPreset("tiny");
  config.steps = steps;
  config.threads = 1;
  config.runDir = scratch(name);
  return config;
}

RunSummary run(const RunConfig& config) {
  auto summary = tb::engine::runTraining(config);
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  return summary.ok() ? *summary : RunSummary{};
}

std::vector<nlohmann::json> readEvents(const std::filesystem::path& dir) {
  std::vector<nlohmann::json> events;
  std::ifstream in(dir / "events.jsonl");
  for (std::string line; std::getline(in, line);) events.push_back(nlohmann::json::parse(line));
  return events;
}

TEST(Trainer, LossFallsWellBelowLogVocabOnTheLearnableTask) {
  RunConfig config = tinyRun("learn", 300);
  config.data.kind = tb::engine::DataKind::Synthetic;
  const RunSummary summary = run(config);
  EXPECT_EQ(summary.state, RunState::Completed);
  EXPECT_NEAR(summary.lossFirst.value_or(NAN), std::log(512.0), 0.2);
  EXPECT_LT(summary.lossLast.value_or(NAN), 0.5 * std::log(512.0));
}

TEST(Trainer, ResumedRunContinuesTheSameLossTrajectoryExactly) {
  const RunSummary straight = run(tinyRun("straight", 6));
  RunConfig first = tinyRun("first-half", 3);
  first.saveEvery = 3;
  const RunSummary half = run(first);
  ASSERT_TRUE(std::filesystem::exists(first.runDir / "checkpoint.tbck"));
  RunConfig second = tinyRun("second-half", 6);
  second.resumeDir = first.runDir;
  const RunSummary resumed = run(second);

  ASSERT_EQ(straight.losses.size(), 6U);
  ASSERT_EQ(resumed.losses.size(), 3U);
  EXPECT_EQ(resumed.firstStep, 4);
  EXPECT_EQ(resumed.steps, 6);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(half.losses[i], straight.losses[i]) << "step " << i + 1;
    EXPECT_EQ(resumed.losses[i], straight.losses[i + 3]) << "step " << i + 4;
  }
}

TEST(Trainer, ResumeRefusesACheckpointOfAnotherModel) {
  RunConfig first = tinyRun("resume-model", 1);
  first.saveEvery = 1;
  (void)run(first);
  RunConfig other = tinyRun("resume-other", 3);
  other.model.layers = 3;
  other.resumeDir = first.runDir;
  const auto refused = tb::engine::runTraining(other);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, tb::ErrorKind::BadInput);
  EXPECT_NE(refused.error().message.find("\"layers\":2"), std::string::npos)
      << refused.error().message;
}

TEST(Trainer, RunDirectoryHoldsConfigEventsAndSummaryAndTheSinkSeesEveryEvent) {
  RunConfig config = tinyRun("files", 3);
  std::vector<std::string> received;
  config.events = [&received](const std::string& line) { received.push_back(line); };
  const RunSummary summary = run(config);
  EXPECT_EQ(summary.state, RunState::Completed);

  const auto events = readEvents(config.runDir);
  ASSERT_EQ(events.size(), 5U);  // start, 3 steps, end
  ASSERT_EQ(received.size(), 5U);
  EXPECT_EQ(nlohmann::json::parse(received[2]), events[2]);
  EXPECT_EQ(events[0]["event"], "start");
  EXPECT_EQ(events[0]["params"], tb::model::parameterCount(config.model));
  EXPECT_EQ(events[0]["config"]["model"]["dim"], 64);
  for (const char* field : {"step", "loss", "step_time_s", "tokens_per_s", "live_bytes",
                            "peak_bytes", "grad_norm", "lr"}) {
    EXPECT_TRUE(events[2].contains(field)) << field;
  }
  EXPECT_EQ(events[3]["step"], 3);
  EXPECT_EQ(events[4]["event"], "end");

  const auto stored = nlohmann::json::parse(*tb::readFile(config.runDir / "summary.json"));
  for (const char* field :
       {"status", "steps", "params", "tokens_per_s", "step_time_s", "peak_bytes", "loss_first",
        "loss_last", "mfu", "threads", "device", "matmul_gflops", "flops_per_token"}) {
    EXPECT_TRUE(stored.contains(field)) << field;
  }
  EXPECT_EQ(stored["status"], "completed");
  EXPECT_EQ(stored["threads"], 1);
  EXPECT_EQ(stored["device"], "cpu");
  EXPECT_TRUE(nlohmann::json::parse(*tb::readFile(config.runDir / "config.json")).is_object());
}

// The engine writes through core/runs and every reader reads through it: what
// the engine returned must come back field for field from the files.
TEST(Trainer, TheRunDirectoryReadsBackThroughCoreRunsFieldForField) {
  RunConfig config = tinyRun("roundtrip", 3);
  config.logEvery = 1;
  RunSummary summary = run(config);
  ASSERT_EQ(summary.state, RunState::Completed);

  auto stored = tb::runs::readRunSummary(config.runDir);
  ASSERT_TRUE(stored.ok()) << stored.error().message;
  RunSummary expected = summary;
  expected.losses.clear();  // per-step losses live in the events, not the summary
  EXPECT_EQ(*stored, expected);

  auto written = tb::runs::readRunConfig(config.runDir);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(written->model, config.model);
  EXPECT_EQ(written->steps, 3);
  EXPECT_EQ(written->seed, config.seed);
  EXPECT_EQ(written->threads, 1);
  EXPECT_EQ(written->device, "cpu");
  EXPECT_EQ(written->seqMin, config.model.seq);
  EXPECT_TRUE(tb::runs::trainedOneLength(*written));
  EXPECT_FALSE(written->torchVersion.empty());

  auto events = tb::runs::readEvents(config.runDir);
  ASSERT_TRUE(events.ok()) << events.error().message;
  EXPECT_TRUE(events->problems.empty());
  ASSERT_EQ(events->events.size(), 5U);
  const tb::runs::RunEvent& start = events->events.front();
  EXPECT_EQ(start.kind, tb::runs::EventKind::Start);
  EXPECT_EQ(start.totalSteps, 3);
  EXPECT_EQ(start.model, config.model.name);
  EXPECT_EQ(start.params, summary.params);
  EXPECT_EQ(start.matmulPath, summary.matmulPath);
  EXPECT_EQ(start.threads, 1);
  const std::vector<tb::runs::StepSample> steps = tb::runs::stepSamples(events->events);
  ASSERT_EQ(steps.size(), 3U);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].step, static_cast<std::int64_t>(i) + 1);
    EXPECT_DOUBLE_EQ(steps[i].loss, summary.losses[i]);
    EXPECT_EQ(steps[i].seq, config.model.seq);
    EXPECT_GT(steps[i].stepTimeSeconds, 0.0);
  }
  const tb::runs::RunEvent& end = events->events.back();
  ASSERT_EQ(end.kind, tb::runs::EventKind::End);
  ASSERT_TRUE(end.summary.has_value());
  EXPECT_EQ(*end.summary, expected);

  const tb::runs::RunRecord record = tb::runs::readRun(config.runDir);
  EXPECT_EQ(record.state, RunState::Completed);
  EXPECT_EQ(record.totalSteps, 3);
  EXPECT_EQ(record.steps, 3);
  EXPECT_EQ(record.model, config.model.name);
}

TEST(Trainer, SummaryMetricsAreConsistentWithEachOther) {
  const RunSummary summary = run(tinyRun("metrics", 4));
  EXPECT_GT(summary.stepTimeSeconds, 0.0);
  EXPECT_NEAR(summary.tokensPerSecond * summary.stepTimeSeconds, 4.0 * 64.0, 1e-6);
  EXPECT_GT(summary.matmulGflops, 0.0);
  EXPECT_NEAR(summary.mfu,
              summary.tokensPerSecond * summary.flopsPerToken / (summary.matmulGflops * 1e9),
              1e-12);
  EXPECT_GT(summary.mfu, 0.0);
  EXPECT_LT(summary.mfu, 1.0);
  // Weights and two AdamW moments alone are three float32 copies of the model.
  EXPECT_GT(summary.peakBytes, 3U * 4U * static_cast<std::uint64_t>(summary.params));
}

TEST(Trainer, MemoryBudgetStopsTheRunAsOomNamingBytesAndBudget) {
  RunConfig config = tinyRun("oom", 3);
  config.memoryBudgetBytes = 1'500'000;  // the weights fit, the optimizer state does not
  const RunSummary summary = run(config);
  EXPECT_EQ(summary.state, RunState::Oom);
  EXPECT_NE(summary.message.find("budget of 1500000 bytes"), std::string::npos) << summary.message;
  EXPECT_NE(summary.message.find("an allocation of "), std::string::npos);
  const auto events = readEvents(config.runDir);
  ASSERT_GE(events.size(), 3U);
  EXPECT_EQ(events[events.size() - 2]["event"], "error");
  EXPECT_EQ(events.back()["summary"]["status"], "oom");
  const auto stored = nlohmann::json::parse(*tb::readFile(config.runDir / "summary.json"));
  EXPECT_EQ(stored["status"], "oom");
}

TEST(Trainer, StopRequestEndsTheRunAsInterruptedAfterTheCurrentStep) {
  RunConfig config = tinyRun("interrupt", 50);
  config.logEvery = 1;  // step events as they happen, not every 10 steps
  const tb::StopSource stop;
  config.stop = stop.token();
  config.events = [&stop](const std::string& line) {
    if (nlohmann::json::parse(line).value("step", 0) == 2) stop.requestStop();
  };
  const RunSummary summary = run(config);
  EXPECT_EQ(summary.state, RunState::Interrupted);
  EXPECT_EQ(summary.steps, 2);
  EXPECT_EQ(readEvents(config.runDir).back()["summary"]["status"], "interrupted");
}

TEST(Trainer, TextDataReportsAHeldOutLoss) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "the quick brown fox jumps over the lazy dog. ";
  const auto file = std::filesystem::temp_directory_path() / "tb_engine_corpus.txt";
  ASSERT_TRUE(tb::writeFileAtomically(file, text).ok());
  RunConfig config = tinyRun("text", 2);
  config.data = tb::engine::parseDataChoice(file.string());
  const RunSummary summary = run(config);
  EXPECT_EQ(summary.state, RunState::Completed);
  ASSERT_TRUE(summary.heldOutLoss.has_value());
  EXPECT_GT(*summary.heldOutLoss, 0.0);
  EXPECT_LT(*summary.heldOutLoss, std::log(512.0) + 1.0);
  std::filesystem::remove(file);
}

TEST(Trainer, BadInputFailsBeforeARunDirectoryExists) {
  RunConfig config = tinyRun("bad", 0);
  auto result = tb::engine::runTraining(config);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, tb::ErrorKind::BadInput);
  EXPECT_NE(result.error().message.find("--steps 0: must be at least 1"), std::string::npos);
  config.steps = 2;
  config.model.kvHeads = 3;
  result = tb::engine::runTraining(config);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("kv-heads 3"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(config.runDir));
}

TEST(Trainer, CudaDeviceFailsWithAClearMessageWhereLibTorchHasNoCuda) {
  if (tb::engine::cudaAvailable()) GTEST_SKIP() << "this LibTorch has a usable CUDA device";
  RunConfig config = tinyRun("cuda", 1);
  config.device = tb::engine::Device::Cuda;
  const auto result = tb::engine::runTraining(config);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("--device cuda"), std::string::npos);
  EXPECT_NE(result.error().message.find("CUDA"), std::string::npos);
}

}  // namespace
