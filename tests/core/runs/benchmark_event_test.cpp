// The benchmark's event lines, written and read by core/runs alone: every
// kind survives a round trip field for field, and bad lines name the field.
#include "tb/runs/benchmark_event.hpp"

#include <gtest/gtest.h>

namespace tb::runs {
namespace {

BenchmarkRunRef ref(std::int64_t index, const char* label) {
  return {index, 8, label, index / 4, "/tmp/out/runs/x-" + std::to_string(index)};
}

void expectSameRef(const BenchmarkRunRef& a, const BenchmarkRunRef& b) {
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.total, b.total);
  EXPECT_EQ(a.label, b.label);
  EXPECT_EQ(a.repeat, b.repeat);
  EXPECT_EQ(a.runDir, b.runDir);
}

BenchmarkEvent roundTrip(const BenchmarkEvent& event) {
  const std::string line = toJsonLine(event);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto parsed = parseBenchmarkEventLine(line);
  EXPECT_TRUE(parsed.ok()) << line;
  return parsed.ok() ? *parsed : BenchmarkEvent{};
}

TEST(BenchmarkEvent, APlanRoundTrips) {
  BenchmarkEvent event;
  event.kind = BenchmarkEventKind::Plan;
  event.elapsedSeconds = 0.25;
  event.plan = {"small",
                20,
                5,
                2,
                1u << 30,
                true,
                900,
                4000,
                "/tmp/out/results.json",
                {ref(0, "Base"), ref(1, "AC2")}};
  const BenchmarkEvent back = roundTrip(event);
  EXPECT_EQ(back.kind, BenchmarkEventKind::Plan);
  EXPECT_EQ(back.name, "plan");
  EXPECT_DOUBLE_EQ(back.elapsedSeconds, 0.25);
  EXPECT_EQ(back.plan.model, "small");
  EXPECT_EQ(back.plan.steps, 20);
  EXPECT_EQ(back.plan.warmupSteps, 5);
  EXPECT_EQ(back.plan.repeats, 2);
  EXPECT_EQ(back.plan.memoryBudgetBytes, 1u << 30);
  EXPECT_TRUE(back.plan.budgetFromPredictor);
  EXPECT_EQ(back.plan.fullRecomputePeakBytes, 900U);
  EXPECT_EQ(back.plan.noRecomputePeakBytes, 4000U);
  EXPECT_EQ(back.plan.resultsFile, "/tmp/out/results.json");
  ASSERT_EQ(back.plan.runs.size(), 2U);
  expectSameRef(back.plan.runs[1], event.plan.runs[1]);
}

TEST(BenchmarkEvent, RunStartStepAndEndRoundTrip) {
  BenchmarkEvent step;
  step.kind = BenchmarkEventKind::RunStep;
  step.run = ref(5, "AC2+CompilerOpt");
  step.step = 7;
  step.steps = 20;
  const BenchmarkEvent stepBack = roundTrip(step);
  EXPECT_EQ(stepBack.kind, BenchmarkEventKind::RunStep);
  expectSameRef(stepBack.run, step.run);
  EXPECT_EQ(stepBack.step, 7);
  EXPECT_EQ(stepBack.steps, 20);

  BenchmarkEvent start = step;
  start.kind = BenchmarkEventKind::RunStart;
  EXPECT_EQ(roundTrip(start).kind, BenchmarkEventKind::RunStart);

  BenchmarkEvent end;
  end.kind = BenchmarkEventKind::RunEnd;
  end.run = ref(7, "AC2+CompilerOpt+CkptOpt");
  end.end = {RunState::Oom, "out of memory: needed 4096 bytes", 0.0, 0.0, 5000, 3.5};
  const BenchmarkEvent endBack = roundTrip(end);
  EXPECT_EQ(endBack.kind, BenchmarkEventKind::RunEnd);
  expectSameRef(endBack.run, end.run);
  EXPECT_EQ(endBack.end.state, RunState::Oom);
  EXPECT_EQ(endBack.end.message, end.end.message);
  EXPECT_EQ(endBack.end.peakBytes, 5000U);
  EXPECT_DOUBLE_EQ(endBack.end.wallSeconds, 3.5);

  end.end = {RunState::Completed, "", 512.5, 0.125, 4096, 2.0};
  const BenchmarkEvent okBack = roundTrip(end);
  EXPECT_EQ(okBack.end.state, RunState::Completed);
  EXPECT_DOUBLE_EQ(okBack.end.tokensPerSecond, 512.5);
  EXPECT_DOUBLE_EQ(okBack.end.stepTimeSeconds, 0.125);
}

TEST(BenchmarkEvent, TheSummaryRoundTrips) {
  BenchmarkEvent event;
  event.kind = BenchmarkEventKind::Summary;
  event.summary = {3, 1, true, "/tmp/out/results.json"};
  const BenchmarkEvent back = roundTrip(event);
  EXPECT_EQ(back.kind, BenchmarkEventKind::Summary);
  EXPECT_EQ(back.summary.finishedRuns, 3);
  EXPECT_EQ(back.summary.failedRuns, 1);
  EXPECT_TRUE(back.summary.stopped);
  EXPECT_EQ(back.summary.resultsFile, "/tmp/out/results.json");
}

TEST(BenchmarkEvent, NewerEventsAreOtherAndBadLinesNameTheField) {
  auto newer = parseBenchmarkEventLine(R"({"event":"node_joined","rank":3})");
  ASSERT_TRUE(newer.ok());
  EXPECT_EQ(newer->kind, BenchmarkEventKind::Other);
  EXPECT_EQ(newer->name, "node_joined");

  EXPECT_FALSE(parseBenchmarkEventLine("[5/12] Base repeat 1: ok").ok());
  auto noRuns = parseBenchmarkEventLine(R"({"event":"plan","model":"tiny"})");
  ASSERT_FALSE(noRuns.ok());
  EXPECT_NE(noRuns.error().message.find("'runs'"), std::string::npos);
  auto noLabel = parseBenchmarkEventLine(R"({"event":"run_start","index":0})");
  ASSERT_FALSE(noLabel.ok());
  EXPECT_NE(noLabel.error().message.find("'label'"), std::string::npos);
  auto badStatus =
      parseBenchmarkEventLine(R"({"event":"run_end","index":0,"label":"Base","status":"ok"})");
  ASSERT_FALSE(badStatus.ok());
  EXPECT_NE(badStatus.error().message.find("'ok'"), std::string::npos);
}

}  // namespace
}  // namespace tb::runs
