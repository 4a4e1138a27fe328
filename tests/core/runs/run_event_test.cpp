// The lines here are copied from what the engine writes (event_log.cpp,
// trainer.cpp, training_loop.cpp), so a renamed field shows up as a failure.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tb/runs/run_event.hpp"

namespace tb::runs {
namespace {

constexpr const char* kStart =
    R"({"config":{"model":{"name":"tiny","vocab":512},"steps":40,"memory_budget":1000000,)"
    R"("recompute":"none"},"params":123456,"flops_per_token":1.5e6,)"
    R"("recompute":{"requested":"auto","policy":"layers:1"},"peak_bytes":10,)"
    R"("run_dir":"/tmp/r","event":"start","elapsed_s":0.5})";
constexpr const char* kStep =
    R"({"step":3,"loss":6.25,"step_time_s":0.02,"tokens_per_s":12800.0,"live_bytes":4096,)"
    R"("peak_bytes":8192,"grad_norm":1.5,"lr":0.0003,"comm_wait_s":0.004,"cpu_s":0.035,)"
    R"("event":"step","elapsed_s":0.7})";
constexpr const char* kEnd =
    R"({"summary":{"status":"oom","model":"tiny","steps":2,"tokens_per_s":100.0,)"
    R"("peak_bytes":999,"loss_first":6.3,"loss_last":null,"message":"needed 4096"},)"
    R"("event":"end","elapsed_s":1.0})";

TEST(ParseEventLine, StartCarriesConfigAndChosenPolicy) {
  auto event = parseEventLine(kStart);
  ASSERT_TRUE(event) << event.error().message;
  EXPECT_EQ(event->kind, EventKind::Start);
  EXPECT_EQ(event->model, "tiny");
  EXPECT_EQ(event->totalSteps, 40);
  EXPECT_EQ(event->memoryBudget, 1000000U);
  EXPECT_EQ(event->params, 123456);
  EXPECT_EQ(event->recompute, "layers:1");
  EXPECT_EQ(event->runDir, "/tmp/r");
  EXPECT_DOUBLE_EQ(event->elapsedSeconds, 0.5);
}

TEST(ParseEventLine, StepCarriesEveryMeasurement) {
  auto event = parseEventLine(kStep);
  ASSERT_TRUE(event) << event.error().message;
  EXPECT_EQ(event->kind, EventKind::Step);
  EXPECT_EQ(event->sample.step, 3);
  EXPECT_DOUBLE_EQ(event->sample.loss, 6.25);
  EXPECT_DOUBLE_EQ(event->sample.tokensPerSecond, 12800.0);
  EXPECT_EQ(event->sample.liveBytes, 4096U);
  EXPECT_EQ(event->sample.peakBytes, 8192U);
  EXPECT_DOUBLE_EQ(event->sample.gradNorm, 1.5);
  EXPECT_DOUBLE_EQ(event->sample.learningRate, 0.0003);
  EXPECT_EQ(event->sample.commWaitSeconds, 0.004);
  EXPECT_EQ(event->sample.cpuSeconds, 0.035);
  // Written back, the optional measurements survive; absent, they stay absent.
  nlohmann::json written = toJson(event->sample);
  written["event"] = "step";
  auto again = parseEventLine(written.dump());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->sample, event->sample);
  auto older = parseEventLine(R"({"event":"step","step":1,"loss":2.0})");
  ASSERT_TRUE(older) << older.error().message;
  EXPECT_FALSE(older->sample.commWaitSeconds.has_value());
  EXPECT_FALSE(older->sample.cpuSeconds.has_value());
}

TEST(ParseEventLine, RankStepIsOneRanksOwnStepAsTheLauncherForwardsIt) {
  auto step = parseEventLine(kStep);
  ASSERT_TRUE(step);
  const std::string line = rankStepLine(3, step->sample, 2.5);
  auto event = parseEventLine(line);
  ASSERT_TRUE(event) << event.error().message << ": " << line;
  EXPECT_EQ(event->kind, EventKind::RankStep);
  EXPECT_EQ(event->name, "rank_step");
  EXPECT_EQ(event->rank, 3);
  EXPECT_DOUBLE_EQ(event->elapsedSeconds, 2.5);
  EXPECT_EQ(event->sample, step->sample);
  // A rank_step is not the run's own step: curves and progress ignore it.
  EXPECT_TRUE(stepSamples({*event}).empty());
  EXPECT_EQ(lastStep(line + "\n"), 0);

  for (const char* rank :
       {"", R"("rank":-1,)", R"("rank":"1",)", R"("rank":1.5,)", R"("rank":4294967296,)"}) {
    auto bad =
        parseEventLine(std::string(R"({"event":"rank_step",)") + rank + R"("step":1,"loss":1.0})");
    ASSERT_FALSE(bad) << rank;
    EXPECT_NE(bad.error().message.find("'rank'"), std::string::npos) << bad.error().message;
  }
}

TEST(ParseEventLine, EndCarriesSummaryWithNullLoss) {
  auto event = parseEventLine(kEnd);
  ASSERT_TRUE(event) << event.error().message;
  ASSERT_EQ(event->kind, EventKind::End);
  ASSERT_TRUE(event->summary.has_value());
  EXPECT_EQ(event->summary->state, RunState::Oom);
  EXPECT_EQ(event->summary->message, "needed 4096");
  EXPECT_EQ(event->summary->peakBytes, 999U);
  ASSERT_TRUE(event->summary->lossFirst.has_value());
  EXPECT_DOUBLE_EQ(*event->summary->lossFirst, 6.3);
  EXPECT_FALSE(event->summary->lossLast.has_value());
}

TEST(ParseEventLine, ErrorCarriesMessage) {
  auto event = parseEventLine(R"({"event":"error","status":"oom","message":"out of memory"})");
  ASSERT_TRUE(event);
  EXPECT_EQ(event->kind, EventKind::Error);
  EXPECT_EQ(event->message, "out of memory");
}

TEST(ParseEventLine, UnknownEventIsKeptAsOther) {
  auto event = parseEventLine(R"({"event":"checkpoint","step":5})");
  ASSERT_TRUE(event);
  EXPECT_EQ(event->kind, EventKind::Other);
  EXPECT_EQ(event->name, "checkpoint");
}

TEST(ParseEventLine, BadLinesNameTheProblem) {
  auto truncated = parseEventLine(R"({"step":3,"loss":6.2)");
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().message, "not valid JSON");
  auto array = parseEventLine("[1,2]");
  ASSERT_FALSE(array);
  EXPECT_EQ(array.error().message, "not a JSON object");
  auto noName = parseEventLine(R"({"step":3})");
  ASSERT_FALSE(noName);
  EXPECT_NE(noName.error().message.find("'event'"), std::string::npos);
  auto textLoss = parseEventLine(R"({"event":"step","step":1,"loss":"nan"})");
  ASSERT_FALSE(textLoss);
  EXPECT_NE(textLoss.error().message.find("'loss'"), std::string::npos);
  auto badStatus = parseEventLine(R"({"event":"end","summary":{"status":"exploded"}})");
  ASSERT_FALSE(badStatus);
  EXPECT_NE(badStatus.error().message.find("exploded"), std::string::npos);
}

class ReadEvents : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tb-runs-events-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(ReadEvents, PartialLastLineIsReportedAndTheRestKept) {
  std::ofstream(dir_ / "events.jsonl") << kStart << '\n'
                                       << kStep << "\n\n"
                                       << R"({"step":4,"lo)";
  auto file = readEvents(dir_);
  ASSERT_TRUE(file) << file.error().message;
  ASSERT_EQ(file->events.size(), 2U);
  ASSERT_EQ(file->problems.size(), 1U);
  EXPECT_EQ(file->problems[0], "line 4: not valid JSON");
  const auto samples = stepSamples(file->events);
  ASSERT_EQ(samples.size(), 1U);
  EXPECT_EQ(samples[0].step, 3);
}

TEST_F(ReadEvents, MissingFileIsAnErrorNamingThePath) {
  auto file = readEvents(dir_);
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message.find("events.jsonl"), std::string::npos);
}

}  // namespace
}  // namespace tb::runs
