// The runner against a stand-in for `trainbench run`: a shell script that
// writes a run directory the way the engine does. It makes the schedule,
// failure and stop paths testable in milliseconds and without LibTorch; the
// integration tests run the real binary.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tb/bench/ablation_runner.hpp"
#include "tb/bench/default_budget.hpp"
#include "tb/model/model_config.hpp"

namespace tb::bench {
namespace {

namespace fs = std::filesystem;

// Every step reports 0.5 s at 200 tokens/s; FAKE_OOM_ON names a --recompute
// value whose runs end oom; FAKE_SLOW makes every run wait for SIGTERM (the
// project's one stop signal) and end interrupted.
constexpr const char* kFakeRun = R"(#!/bin/sh
dir=""; recompute=""; steps=1
while [ $# -gt 0 ]; do
  case "$1" in
    --run-dir) dir="$2"; shift ;;
    --recompute) recompute="$2"; shift ;;
    --steps) steps="$2"; shift ;;
  esac
  shift
done
mkdir -p "$dir"
config='"config":{"threads":2,"torch_version":"9.9"}'
rates='"flops_per_token":10,"matmul_gflops":1,"matmul_path":"fake-blas"'
echo "{\"event\":\"start\",$config,$rates}" > "$dir/events.jsonl"
if [ -n "$FAKE_SLOW" ]; then
  trap 'echo "{\"status\":\"interrupted\",\"peak_bytes\":1}" > "$dir/summary.json"; exit 1' TERM
  while :; do sleep 0.05; done
fi
if [ "$recompute" = "$FAKE_OOM_ON" ]; then
  echo '{"status":"oom","message":"past the budget","peak_bytes":100}' > "$dir/summary.json"
  exit 1
fi
i=1
while [ $i -le "$steps" ]; do
  timing='"step_time_s":0.5,"tokens_per_s":200'
  echo "{\"event\":\"step\",\"step\":$i,\"loss\":$((10 - i)),$timing}" >> "$dir/events.jsonl"
  i=$((i + 1))
done
echo '{"status":"completed","peak_bytes":2048}' > "$dir/summary.json"
echo '{"status":"completed"}'
)";

class AblationRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("tb_ablation_runner_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    const fs::path program = root_ / "fake-trainbench";
    std::ofstream(program) << kFakeRun;
    fs::permissions(program, fs::perms::owner_all);
    spec_.program = program;
    spec_.modelArgs = {"--model", "tiny"};
    spec_.model = "tiny";
    spec_.steps = 3;
    spec_.warmupSteps = 1;
    spec_.repeats = 2;
    spec_.memoryBudgetBytes = 1 << 20;
    spec_.outDir = root_ / "out";
    spec_.appVersion = "0.0.0-test";
  }
  void TearDown() override {
    ::unsetenv("FAKE_OOM_ON");
    ::unsetenv("FAKE_SLOW");
  }

  fs::path root_;
  AblationSpec spec_;
};

TEST_F(AblationRunnerTest, RunsTheScheduleInterleavedAndWritesResults) {
  std::vector<std::string> order;
  std::vector<runs::BenchmarkEventKind> kinds;
  AblationCallbacks callbacks;
  callbacks.events = [&](const runs::BenchmarkEvent& event) {
    if (kinds.empty() || kinds.back() != event.kind) kinds.push_back(event.kind);
    if (event.kind == runs::BenchmarkEventKind::RunEnd) order.push_back(event.run.label);
  };
  const Expected<AblationOutcome> outcome = runAblation(spec_, callbacks);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(order, (std::vector<std::string>{"Base", "AC2", "AC2+CompilerOpt",
                                             "AC2+CompilerOpt+CkptOpt", "Base", "AC2",
                                             "AC2+CompilerOpt", "AC2+CompilerOpt+CkptOpt"}));
  EXPECT_EQ(outcome->failedRuns, 0U);
  EXPECT_FALSE(outcome->stopped);
  // Plan first, summary last, and every run started, stepped and ended.
  using Kind = runs::BenchmarkEventKind;
  ASSERT_GE(kinds.size(), 3U);
  EXPECT_EQ(kinds.front(), Kind::Plan);
  EXPECT_EQ(kinds.back(), Kind::Summary);
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), Kind::RunStart), 8);
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), Kind::RunEnd), 8);
  const Expected<AblationResults> saved = loadResults(spec_.outDir / "results.json");
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  EXPECT_EQ(saved->machine.matmulPath, "fake-blas");
  EXPECT_EQ(saved->machine.libtorchVersion, "9.9");
  EXPECT_FALSE(saved->machine.cpuModel.empty());
  ASSERT_EQ(saved->configurations.size(), 4U);
  for (const ConfigurationResult& config : saved->configurations) {
    EXPECT_EQ(config.runs.size(), 2U) << config.label;
    EXPECT_EQ(config.throughput.count, 2U);
    EXPECT_DOUBLE_EQ(config.throughput.median, 200.0);
    EXPECT_EQ(config.stepTimes.size(), 4U);  // 2 runs x (3 steps - 1 warm-up)
    EXPECT_EQ(config.lossCurve, (std::vector<double>{9.0, 8.0, 7.0}));
  }
  EXPECT_TRUE(fs::exists(spec_.outDir / "runs" / "ac2-compileropt-ckptopt-2" / "summary.json"));
  EXPECT_TRUE(saved->complete);
  EXPECT_EQ(saved->plannedRuns, 8);
  EXPECT_EQ(saved->completedRuns, 8);
}

TEST_F(AblationRunnerTest, AFailedRunIsRecordedAndTheAblationGoesOn) {
  ::setenv("FAKE_OOM_ON", "auto", 1);
  const Expected<AblationOutcome> outcome = runAblation(spec_, {});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(outcome->finishedRuns, 8U);
  EXPECT_EQ(outcome->failedRuns, 2U);
  const ConfigurationResult& ckpt = outcome->results.configurations.back();
  EXPECT_EQ(ckpt.throughput.count, 0U);
  ASSERT_EQ(ckpt.runs.size(), 2U);
  EXPECT_EQ(ckpt.runs[0].state, tb::runs::RunState::Oom);
  const Expected<AblationResults> saved = loadResults(spec_.outDir / "results.json");
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  // Every run ended, but two did not end ok: the file says it is partial.
  EXPECT_FALSE(saved->complete);
  EXPECT_EQ(saved->plannedRuns, 8);
  EXPECT_EQ(saved->completedRuns, 6);
}

TEST_F(AblationRunnerTest, AStopEndsTheCurrentChildAndKeepsFinishedRuns) {
  ::setenv("FAKE_SLOW", "1", 1);
  const StopSource stop;
  AblationCallbacks callbacks;
  callbacks.stop = stop.token();
  std::thread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop.requestStop();
  });
  const Expected<AblationOutcome> outcome = runAblation(spec_, callbacks);
  stopper.join();
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_TRUE(outcome->stopped);
  EXPECT_EQ(outcome->finishedRuns, 1U);
  EXPECT_EQ(outcome->failedRuns, 0U);
  const Expected<AblationResults> saved = loadResults(spec_.outDir / "results.json");
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  ASSERT_EQ(saved->configurations.front().runs.size(), 1U);
  EXPECT_EQ(saved->configurations.front().runs.front().state, tb::runs::RunState::Interrupted);
  EXPECT_FALSE(saved->complete);
  EXPECT_EQ(saved->plannedRuns, 8);
  EXPECT_EQ(saved->completedRuns, 0);
}

TEST_F(AblationRunnerTest, ChildCommandCarriesTheStepFlagsBudgetAndRunDirectory) {
  const std::vector<std::string> argv = childCommand(spec_, {AblationStep::CkptOpt, 1});
  const std::vector<std::string> expected{
      spec_.program.string(),
      "run",
      "--model",
      "tiny",
      "--runtime",
      "tuned",
      "--compile",
      "on",
      "--recompute",
      "auto",
      "--memory-budget",
      "1048576",
      "--steps",
      "3",
      "--device",
      "cpu",
      "--run-dir",
      (spec_.outDir / "runs" / "ac2-compileropt-ckptopt-2").string(),
      "--json"};
  EXPECT_EQ(argv, expected);
}

TEST_F(AblationRunnerTest, BadSpecsNameTheValue) {
  spec_.repeats = 0;
  EXPECT_NE(validate(spec_).error().message.find("--repeats 0: must be at least 1"),
            std::string::npos);
  spec_.repeats = 1;
  spec_.warmupSteps = 3;
  EXPECT_NE(validate(spec_).error().message.find("--warmup 3: must be"), std::string::npos);
  spec_.warmupSteps = 0;
  spec_.memoryBudgetBytes = 0;
  EXPECT_NE(validate(spec_).error().message.find("--memory-budget 0: "), std::string::npos);
  EXPECT_FALSE(runAblation(spec_, {}).ok());
}

TEST(DefaultBudget, LetsBaseFitAndLeavesCkptOptRoom) {
  for (const char* name : {"tiny", "small"}) {
    const Expected<model::ModelConfig> preset = model::findPreset(name);
    ASSERT_TRUE(preset.ok());
    const Expected<BudgetChoice> choice = defaultMemoryBudget(*preset);
    ASSERT_TRUE(choice.ok()) << choice.error().message;
    EXPECT_LT(choice->fullRecomputePeakBytes, choice->noRecomputePeakBytes) << name;
    EXPECT_GE(static_cast<double>(choice->budgetBytes),
              static_cast<double>(choice->fullRecomputePeakBytes) / 0.95)
        << name;
    EXPECT_LT(choice->budgetBytes, choice->noRecomputePeakBytes) << name;
  }
}

TEST(DefaultBudget, BadShapesAreRefused) {
  model::ModelConfig broken = *model::findPreset("tiny");
  broken.heads = 3;  // does not divide the width
  EXPECT_FALSE(defaultMemoryBudget(broken).ok());
}

}  // namespace
}  // namespace tb::bench
