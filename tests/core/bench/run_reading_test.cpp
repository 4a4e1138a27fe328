// Reading run directories: warm-up steps must never reach a statistic, and a
// run cut short (no summary, a half-written last line) must still be read.
#include <gtest/gtest.h>

#include <string>

#include "tb/bench/run_reading.hpp"

namespace tb::bench {
namespace {

const char* kStart = R"({"event":"start","config":{"threads":3,"torch_version":"2.1.2"},)"
                     R"("flops_per_token":1000.0,"matmul_gflops":2.0,"matmul_path":"aten"})";

std::string step(int number, double seconds, double loss) {
  return R"({"event":"step","step":)" + std::to_string(number) + R"(,"loss":)" +
         std::to_string(loss) + R"(,"step_time_s":)" + std::to_string(seconds) +
         R"(,"tokens_per_s":)" + std::to_string(100.0 / seconds) + "}";
}

std::string events(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

const char* kCompleted =
    R"({"status":"completed","tokens_per_s":1.0,"step_time_s":9.0,"peak_bytes":4096,)"
    R"("mfu":0.5,"threads":3})";

TEST(RunReading, WarmupStepsAreLeftOutOfTheMedians) {
  // Step 1 is ten times slower: with it, the median of three would be 0.2 s.
  const RunReading reading = readRun(
      events({kStart, step(1, 2.0, 6.0), step(2, 0.2, 5.0), step(3, 0.1, 4.0), step(4, 0.3, 3.0)}),
      kCompleted, 1);
  EXPECT_EQ(reading.measurement.state, tb::runs::RunState::Completed);
  EXPECT_EQ(reading.stepTimes, (std::vector<double>{0.2, 0.1, 0.3}));
  EXPECT_DOUBLE_EQ(reading.measurement.stepTimeS, 0.2);
  // 100 tokens per step over the 0.2 s median step (the events carry rates
  // rounded to six decimals, hence the tolerance).
  EXPECT_NEAR(reading.measurement.tokensPerS, 500.0, 1e-4);
  // MFU over the measured steps: 500 tokens/s * 1000 FLOP / 2 GFLOP/s.
  EXPECT_NEAR(reading.measurement.mfu, 500.0 * 1000.0 / 2e9, 1e-12);
  EXPECT_EQ(reading.losses, (std::vector<double>{6.0, 5.0, 4.0, 3.0}));
  EXPECT_DOUBLE_EQ(reading.measurement.lossFirst, 6.0);
  EXPECT_DOUBLE_EQ(reading.measurement.lossLast, 3.0);
  EXPECT_EQ(reading.measurement.peakBytes, 4096U);
  EXPECT_EQ(reading.matmulPath, "aten");
  EXPECT_EQ(reading.torchVersion, "2.1.2");
  EXPECT_EQ(reading.threads, 3);
}

TEST(RunReading, EngineStatusesBecomeResultStatuses) {
  EXPECT_EQ(readRun("", R"({"status":"oom","message":"budget"})", 0).measurement.state,
            tb::runs::RunState::Oom);
  EXPECT_EQ(readRun("", R"({"status":"interrupted"})", 0).measurement.state,
            tb::runs::RunState::Interrupted);
  EXPECT_EQ(readRun("", R"({"status":"failed"})", 0).measurement.state, tb::runs::RunState::Failed);
  const RunReading oom = readRun("", R"({"status":"oom","message":"over budget"})", 0);
  EXPECT_EQ(oom.message, "over budget");
}

TEST(RunReading, MissingSummaryIsAFailedRunWithAReason) {
  const RunReading reading = readRun(events({kStart, step(1, 0.5, 2.0)}), "", 0);
  EXPECT_EQ(reading.measurement.state, tb::runs::RunState::Failed);
  EXPECT_FALSE(reading.message.empty());
  EXPECT_DOUBLE_EQ(reading.measurement.stepTimeS, 0.5);
}

TEST(RunReading, TruncatedAndForeignLinesAreSkipped) {
  const std::string text = events({kStart, step(1, 0.5, 2.0), "not json", R"({"no":"event"})"}) +
                           R"({"event":"step","step":2,"lo)";
  const RunReading reading = readRun(text, kCompleted, 0);
  EXPECT_EQ(reading.stepTimes.size(), 1U);
  EXPECT_EQ(runs::lastStep(text), 1);
}

TEST(RunReading, WithoutMeasuredStepsTheSummaryMediansAreUsed) {
  const RunReading reading = readRun(events({kStart, step(1, 0.5, 2.0)}), kCompleted, 1);
  EXPECT_TRUE(reading.stepTimes.empty());
  EXPECT_DOUBLE_EQ(reading.measurement.stepTimeS, 9.0);
  EXPECT_DOUBLE_EQ(reading.measurement.tokensPerS, 1.0);
}

TEST(RunReading, LossesThatWereNotReadBackAreNotInTheCurve) {
  const std::string lazy = R"({"event":"step","step":2,"loss":null,"step_time_s":0.1,)"
                           R"("tokens_per_s":1000.0})";
  const RunReading reading = readRun(events({kStart, step(1, 0.1, 2.0), lazy}), kCompleted, 0);
  EXPECT_EQ(reading.losses, (std::vector<double>{2.0}));
  EXPECT_EQ(reading.stepTimes.size(), 2U);
}

TEST(RunReading, LastStepIsTheNewestCompleteStepEvent) {
  EXPECT_EQ(runs::lastStep(""), 0);
  EXPECT_EQ(runs::lastStep(events({kStart})), 0);
  EXPECT_EQ(
      runs::lastStep(events({kStart, step(1, 0.1, 1.0), step(2, 0.1, 1.0), R"({"event":"end"})"})),
      2);
}

}  // namespace
}  // namespace tb::bench
