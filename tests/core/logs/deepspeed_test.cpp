// The DeepSpeed engine's console log, read line by line and through the
// importer. The fixtures follow docs/LOG_FORMATS.md's DeepSpeed section:
// v0.10_bert_fp16 holds a real excerpt (SeekPoint/DeepSpeedExamples,
// DeepSpeed 0.10.0) with the launcher's, deepspeed.initialize's, the config
// print's and the fp16 loss scaler's lines around it as that code prints
// them; v0.7_running_avg holds the line of a CSCS example README (v0.7 form);
// v0.6_samples_per_sec the ≤ v0.6 form; wall_clock_breakdown_v0.14 the
// argonne-lcf Megatron-DeepSpeed excerpt in a steps_per_print 2 run;
// old_timer_names_v0.9 the names before v0.10.1; breakdown_only_v0.18 the
// print_dist form with steps_per_print unset (the default since v0.15.2);
// pipeline_engine the PipelineEngine line; flops_profiler the block of
// DeepSpeed's flops-profiler tutorial; the mixed, truncated and malformed
// fixtures are built from the same lines.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "format_parser.hpp"
#include "line_feed_support.hpp"
#include "tb/logs/log_import.hpp"

namespace tb::logs {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

test::FedLines readDeepSpeed(const std::string& relative) {
  const auto format = detail::makeDeepSpeedFormat(relative);
  return test::feedText(*format, test::readFixture(relative));
}

test::FedLines feedLines(const std::string& text) {
  const auto format = detail::makeDeepSpeedFormat("ds.log");
  return test::feedText(*format, text);
}

void expectJobSamples(const runs::ImportedStep& step, double value) {
  ASSERT_TRUE(step.samplesPerSecond.has_value()) << "step " << step.step;
  EXPECT_DOUBLE_EQ(step.samplesPerSecond->value, value);
  EXPECT_EQ(step.samplesPerSecond->scope, runs::RateScope::Job);
}

// ------------------------------------------------- ThroughputTimer forms --

TEST(DeepSpeedLog, V010ThroughputTimerAndProgressLinesMakeOneRecordPerPrintedStep) {
  const auto fed = readDeepSpeed("deepspeed/v0.10_bert_fp16.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 2U);

  const auto& first = fed.steps[0];
  EXPECT_EQ(first.step, 10);
  EXPECT_DOUBLE_EQ(*first.learningRate, 1e-4);
  expectJobSamples(first, 222.88787331278564);  // CurrSamplesPerSec: this step's
  // CurrSamplesPerSec is train_batch_size (16) over the step's time.
  EXPECT_DOUBLE_EQ(*first.stepTimeSeconds, 16.0 / 222.88787331278564);
  EXPECT_DOUBLE_EQ(*first.memoryBytes, 1.36 * kGiB);
  // skipped=10 at step 10: every update so far hit an fp16 overflow.
  EXPECT_TRUE(first.skippedUpdate);
  EXPECT_FALSE(first.loss.has_value());  // the engine prints none; "Loss:" is the script's logger

  const auto& second = fed.steps[1];
  EXPECT_EQ(second.step, 20);
  expectJobSamples(second, 224.01234567890123);
  EXPECT_DOUBLE_EQ(*second.stepTimeSeconds, 16.0 / 224.01234567890123);
  // Two of the ten updates since step 10 were skipped; DeepSpeed does not say
  // which, so the printed step is not marked.
  EXPECT_FALSE(second.skippedUpdate);

  EXPECT_EQ(fed.run.frameworkVersion, "0.10.0");
  EXPECT_EQ(*fed.run.worldSize, 1);     // the launcher's dist_world_size
  EXPECT_EQ(*fed.run.globalBatch, 16);  // the config print's train_batch_size
  EXPECT_EQ(fed.run.memoryKind, "max_allocated");
}

TEST(DeepSpeedLog, V07UnlabelledTimerLineJoinsItsProgressLine) {
  const auto fed = readDeepSpeed("deepspeed/v0.7_running_avg.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 2U);
  const auto& first = fed.steps[0];
  EXPECT_EQ(first.step, 20);
  EXPECT_DOUBLE_EQ(*first.learningRate, 0.00015);  // parameter group 0
  expectJobSamples(first, 227.48090316379353);
  EXPECT_DOUBLE_EQ(*first.stepTimeSeconds, 64.0 / 227.48090316379353);
  EXPECT_DOUBLE_EQ(*first.memoryBytes, 15.06 * kGiB);
  EXPECT_EQ(fed.steps[1].step, 40);
  EXPECT_DOUBLE_EQ(*fed.steps[1].learningRate, 0.0003);
  EXPECT_EQ(fed.run.frameworkVersion, "0.7.0");
}

TEST(DeepSpeedLog, UnlabelledStepGivesWayToTheProgressLinesGlobalStep) {
  // Before v0.8 the timer's step is not labelled global; with gradient
  // accumulation the progress line of the same engine.step() says which
  // optimizer step it is.
  const auto fed = feedLines(
      "[2022-08-29 06:58:56,175] [INFO] [logging.py:69:log_dist] [Rank 0] step=20, skipped=0, "
      "lr=[0.0001], mom=[(0.9, 0.999)]\n"
      "[2022-08-29 06:58:56,176] [INFO] [timer.py:198:stop] 0/80, RunningAvgSamplesPerSec=232.7, "
      "CurrSamplesPerSec=227.5, MemAllocated=0.36GB, MaxMemAllocated=15.06GB\n"
      "[2022-08-29 06:59:01,702] [INFO] [timer.py:198:stop] 0/160, RunningAvgSamplesPerSec=232.1, "
      "CurrSamplesPerSec=231.0, MemAllocated=0.36GB, MaxMemAllocated=15.06GB\n");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 2U);
  EXPECT_EQ(fed.steps[0].step, 20);
  expectJobSamples(fed.steps[0], 227.5);
  EXPECT_EQ(fed.steps[1].step, 160);  // no progress line: the step as printed
  expectJobSamples(fed.steps[1], 231.0);
}

TEST(DeepSpeedLog, V06SamplesPerSecIsTheRunningAverage) {
  const auto fed = readDeepSpeed("deepspeed/v0.6_samples_per_sec.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 2U);
  EXPECT_EQ(fed.steps[0].step, 10);
  expectJobSamples(fed.steps[0], 45.87393297290912);
  // The old form has no current rate, so no step time either.
  EXPECT_FALSE(fed.steps[0].stepTimeSeconds.has_value());
  EXPECT_DOUBLE_EQ(*fed.steps[0].memoryBytes, 6.45 * kGiB);
  EXPECT_EQ(fed.steps[1].step, 20);
  expectJobSamples(fed.steps[1], 46.01187529458391);
  EXPECT_EQ(*fed.run.globalBatch, 32);
}

// ------------------------------------------------- wall-clock breakdown --

TEST(DeepSpeedLog, BreakdownJoinsItsPrintedStepAndUnprintedStepsAreNoRecords) {
  const auto fed = readDeepSpeed("deepspeed/wall_clock_breakdown_v0.14.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  // steps_per_print 2: steps 1 and 3 print only their breakdowns.
  ASSERT_EQ(fed.steps.size(), 2U);
  EXPECT_EQ(fed.steps[0].step, 2);
  EXPECT_EQ(fed.steps[1].step, 4);
  // The timer's step time (the whole step) wins over fwd + bwd + step.
  EXPECT_DOUBLE_EQ(*fed.steps[0].stepTimeSeconds, 32.0 / 1.2468);
  EXPECT_DOUBLE_EQ(*fed.steps[1].stepTimeSeconds, 32.0 / 1.2475);
  EXPECT_DOUBLE_EQ(*fed.steps[0].learningRate, 2e-5);
  EXPECT_DOUBLE_EQ(*fed.steps[0].memoryBytes, 61.5 * kGiB);
}

TEST(DeepSpeedLog, OldTimerNamesGiveTheStepTimeWithoutATrainBatch) {
  // No config print: CurrSamplesPerSec cannot become a time, the global
  // breakdown (forward + backward + step before v0.10.1) does.
  const auto fed = readDeepSpeed("deepspeed/old_timer_names_v0.9.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 2U);
  EXPECT_EQ(fed.steps[0].step, 3);
  EXPECT_NEAR(*fed.steps[0].stepTimeSeconds, (40.12 + 80.25 + 12.50) / 1000.0, 1e-12);
  expectJobSamples(fed.steps[0], 60.1);
  EXPECT_EQ(fed.steps[1].step, 4);
  EXPECT_NEAR(*fed.steps[1].stepTimeSeconds, (39.88 + 79.75 + 12.37) / 1000.0, 1e-12);
  EXPECT_EQ(fed.run.frameworkVersion, "0.9.2");
  EXPECT_FALSE(fed.run.globalBatch.has_value());
}

TEST(DeepSpeedLog, BreakdownOnlyLogCountsItsSteps) {
  // print_dist (DeepSpeed ≥ 0.18), steps_per_print unset: the global
  // breakdown is the only per-step line, printed once per optimizer step.
  const auto fed = readDeepSpeed("deepspeed/breakdown_only_v0.18.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 3U);
  EXPECT_EQ(fed.steps[0].step, 1);
  EXPECT_NEAR(*fed.steps[0].stepTimeSeconds, (120.50 + 240.25 + 30.10) / 1000.0, 1e-12);
  EXPECT_FALSE(fed.steps[0].skippedUpdate);
  EXPECT_EQ(fed.steps[1].step, 2);
  EXPECT_TRUE(fed.steps[1].skippedUpdate);  // the overflow line came before its breakdown
  EXPECT_NEAR(*fed.steps[1].stepTimeSeconds, (100.0 + 200.0 + 0.5) / 1000.0, 1e-12);
  EXPECT_EQ(fed.steps[2].step, 3);
  EXPECT_FALSE(fed.steps[2].skippedUpdate);
  EXPECT_FALSE(fed.steps[2].samplesPerSecond.has_value());  // fwd+bwd+step leaves out data loading
  EXPECT_EQ(fed.run.frameworkVersion, "0.18.1");
  EXPECT_TRUE(fed.run.memoryKind.empty());
}

// ------------------------------------------------ pipeline and profiler --

TEST(DeepSpeedLog, PipelineEngineLineGivesLossTimeAndSamples) {
  const auto fed = readDeepSpeed("deepspeed/pipeline_engine.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 2U);
  EXPECT_EQ(fed.steps[0].step, 10);
  EXPECT_DOUBLE_EQ(*fed.steps[0].loss, 7.1234);
  EXPECT_DOUBLE_EQ(*fed.steps[0].stepTimeSeconds, 1.234);
  expectJobSamples(fed.steps[0], 207.455);
  EXPECT_DOUBLE_EQ(*fed.steps[0].learningRate, 1e-4);
  EXPECT_EQ(fed.steps[1].step, 20);
  EXPECT_DOUBLE_EQ(*fed.steps[1].loss, 6.9876);  // not moe_loss
  expectJobSamples(fed.steps[1], 208.130);
}

TEST(DeepSpeedLog, FlopsProfilerSummaryJoinsItsStep) {
  const auto fed = readDeepSpeed("deepspeed/flops_profiler.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 1U);
  const auto& step = fed.steps[0];
  EXPECT_EQ(step.step, 10);
  EXPECT_DOUBLE_EQ(*step.learningRate, 1e-4);
  EXPECT_DOUBLE_EQ(*step.tflopsPerGpu, 102.0);             // fwd+bwd FLOPS per GPU, in TFLOPS
  EXPECT_DOUBLE_EQ(*step.stepTimeSeconds, 184.73 * 1e-3);  // iter latency: 184.73 ms
  expectJobSamples(step, 433.07);
  EXPECT_EQ(*fed.run.worldSize, 1);
}

TEST(DeepSpeedLog, ProfilerPrefersIterationFlopsAndDropsSamplesUnderModelParallelism) {
  // print_model_profile with model parallelism: its samples/second counts
  // the micro batch on every rank (4 × 64 / 7.77 s), model-parallel ones too.
  const auto fed = feedLines(
      "-------------------------- DeepSpeed Flops Profiler --------------------------\n"
      "Profile Summary at step 3:\n"
      "world size:                                                             64\n"
      "data parallel size:                                                     8\n"
      "model parallel size:                                                    8\n"
      "fwd+bwd FLOPS per GPU = 3 * fwd flops per GPU / (fwd+bwd latency):      16.4 TFLOPS\n"
      "step latency:                                                           1.31 s\n"
      "iter latency:                                                           7.77 s\n"
      "FLOPS per GPU = 3 * fwd flops per GPU / iter latency:                   13.63 TFLOPS\n"
      "samples/second:                                                         32.93\n"
      "----------------------------- Aggregated Profile per GPU -----------------------------\n");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 1U);
  EXPECT_EQ(fed.steps[0].step, 3);
  EXPECT_DOUBLE_EQ(*fed.steps[0].tflopsPerGpu, 13.63);
  EXPECT_DOUBLE_EQ(*fed.steps[0].stepTimeSeconds, 7.77);
  EXPECT_FALSE(fed.steps[0].samplesPerSecond.has_value());
  EXPECT_EQ(*fed.run.worldSize, 64);
}

TEST(DeepSpeedLog, ProfilerUnitsAndNegativeTimings) {
  const auto fed = feedLines(
      "-------------------------- DeepSpeed Flops Profiler --------------------------\n"
      "Profile Summary at step 1:\n"
      "fwd+bwd FLOPS per GPU = 3 * fwd FLOPs per GPU / (fwd+bwd latency): 772.89 GFLOPS\n"
      "iter latency:                                                           -2.86511e+08 us\n"
      "FLOPS per GPU = 3 * fwd flops per GPU / iter latency:                   -1.16192e+18 "
      "uFLOPS\n"
      "samples/second:                                                         -0.5\n");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 1U);
  // Negative figures come from timers that were not running; they are left out.
  EXPECT_NEAR(*fed.steps[0].tflopsPerGpu, 0.77289, 1e-12);  // GFLOPS in TFLOPS
  EXPECT_FALSE(fed.steps[0].stepTimeSeconds.has_value());
  EXPECT_FALSE(fed.steps[0].samplesPerSecond.has_value());
}

// ------------------------------------------------- mixed and bad input --

TEST(DeepSpeedLog, MixedStreamSkipsOtherLoggersAndFindsOverflowBehindAProgressBar) {
  const auto fed = readDeepSpeed("deepspeed/mixed_stream_torchrun.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 2U);
  EXPECT_EQ(fed.steps[0].step, 10);
  EXPECT_DOUBLE_EQ(*fed.steps[0].stepTimeSeconds, 0.5);  // 64 / 128
  EXPECT_DOUBLE_EQ(*fed.steps[0].memoryBytes, 9.25 * kGiB);
  EXPECT_FALSE(fed.steps[0].skippedUpdate);     // 1 of 10 skipped
  EXPECT_FALSE(fed.steps[0].loss.has_value());  // the Trainer's dicts are not DeepSpeed's
  EXPECT_EQ(fed.steps[1].step, 20);
  EXPECT_DOUBLE_EQ(*fed.steps[1].learningRate, 2e-5);
  EXPECT_EQ(fed.run.frameworkVersion, "0.14.0");
  EXPECT_EQ(*fed.run.globalBatch, 64);
}

TEST(DeepSpeedLog, EveryStepSkippedWithStepsPerPrintOne) {
  const auto fed = feedLines(
      "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768\n"
      "[Rank 0] step=1, skipped=1, lr=[0.0], mom=[(0.9, 0.999)]\n"
      "[Rank 0] step=2, skipped=1, lr=[1e-05], mom=[(0.9, 0.999)]\n");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 2U);
  EXPECT_TRUE(fed.steps[0].skippedUpdate);
  EXPECT_FALSE(fed.steps[1].skippedUpdate);
}

TEST(DeepSpeedLog, MalformedProgressLineNamesOriginAndLine) {
  const auto fed = readDeepSpeed("deepspeed/malformed_progress.log");
  ASSERT_FALSE(fed.status.ok());
  EXPECT_EQ(fed.status.error().kind, ErrorKind::Parse);
  EXPECT_NE(
      fed.status.error().message.find("deepspeed/malformed_progress.log:3: expected 'skipped=N'"),
      std::string::npos)
      << fed.status.error().message;
}

TEST(DeepSpeedLog, TimerValueThatIsNoNumberNamesItsKey) {
  const auto fed = feedLines(
      "[timer.py:215:stop] epoch=0/micro_step=10/global_step=10, RunningAvgSamplesPerSec=1.0, "
      "CurrSamplesPerSec=fast, MemAllocated=0.07GB, MaxMemAllocated=1.36GB\n");
  ASSERT_FALSE(fed.status.ok());
  EXPECT_NE(fed.status.error().message.find("ds.log:1: expected a number for 'CurrSamplesPerSec'"),
            std::string::npos)
      << fed.status.error().message;
}

TEST(DeepSpeedLog, BreakdownValueThatIsNoNumberNamesItsTimer) {
  const auto fed = feedLines("[Rank 0] time (ms) | fwd: 1.0 | bwd: slow | step: 1.0\n");
  ASSERT_FALSE(fed.status.ok());
  EXPECT_EQ(fed.status.error().message, "ds.log:1: expected milliseconds for 'bwd', found 'slow'");
}

// ----------------------------------------------------------- detection --

TEST(DeepSpeedLog, ClaimsItsEngineLinesOnly) {
  EXPECT_TRUE(detail::deepSpeedClaimsLine(
      "[2023-08-02 00:41:17,936] [INFO] [timer.py:215:stop] epoch=0/micro_step=10/global_step=10, "
      "RunningAvgSamplesPerSec=220.69530887096045, CurrSamplesPerSec=222.88787331278564, "
      "MemAllocated=0.07GB, "
      "MaxMemAllocated=1.36GB"));
  EXPECT_TRUE(detail::deepSpeedClaimsLine(
      "[2022-08-29 06:58:56,176] [INFO] [timer.py:198:stop] 0/20, "
      "RunningAvgSamplesPerSec=232.7340551694273, "
      "CurrSamplesPerSec=227.48090316379353, MemAllocated=0.36GB, MaxMemAllocated=15.06GB"));
  EXPECT_TRUE(detail::deepSpeedClaimsLine(
      "[timer.py:189:stop] 0/10, SamplesPerSec=45.87, MemAllocated=2.1GB, MaxMemAllocated=6.45GB"));
  EXPECT_TRUE(
      detail::deepSpeedClaimsLine("[2023-08-02 00:41:17,935] [INFO] [logging.py:96:log_dist] [Rank "
                                  "0] step=10, skipped=10, lr=[0.0001], "
                                  "mom=[(0.9, 0.999)]"));
  EXPECT_TRUE(
      detail::deepSpeedClaimsLine("[Rank 0] time (ms) | fwd_microstep: 6567.68 | bwd_microstep: "
                                  "17950.36 | step_microstep: 1139.27"));
  EXPECT_TRUE(
      detail::deepSpeedClaimsLine("[Rank 0] time (ms) | forward: 40.12 | backward: 80.25 | "
                                  "backward_inner: 75.00 | step: 12.50"));
  EXPECT_TRUE(detail::deepSpeedClaimsLine(
      "steps: 10 loss: 7.1234 iter time (s): 1.234 samples/sec: 207.455"));
  EXPECT_TRUE(detail::deepSpeedClaimsLine(
      "-------------------------- DeepSpeed Flops Profiler --------------------------"));

  // Megatron-LM's own old timers have the same `time (ms) |` head.
  EXPECT_FALSE(detail::deepSpeedClaimsLine(
      "time (ms) | forward: 250.12 | backward: 500.34 | optimizer: 50.01"));
  EXPECT_FALSE(
      detail::deepSpeedClaimsLine("[2023-08-02 00:41:08,100] [INFO] [logging.py:96:log_dist] [Rank "
                                  "0] DeepSpeed info: version=0.10.0, "
                                  "git-hash=unknown, git-branch=unknown"));
  EXPECT_FALSE(detail::deepSpeedClaimsLine(
      "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536"));
  EXPECT_FALSE(detail::deepSpeedClaimsLine(
      "{'loss': 2.3456, 'grad_norm': 1.23, 'learning_rate': 1e-05, 'epoch': 0.1}"));
  EXPECT_FALSE(
      detail::deepSpeedClaimsLine(" iteration       10/     100 | consumed samples:          640 | "
                                  "elapsed time per iteration (ms): 201.5 |"));
  EXPECT_FALSE(detail::deepSpeedClaimsLine("step: 10  loss: 7.1  tps: 1,234"));
}

// ------------------------------------------------------- whole importer --

TEST(DeepSpeedImport, DetectsAndImportsAFixture) {
  const auto path = test::fixture("deepspeed/v0.10_bert_fp16.log");
  const auto detected = detectFormat(path);
  ASSERT_TRUE(detected.ok()) << detected.error().message;
  EXPECT_EQ(*detected, Format::DeepSpeed);

  const auto imported = importLog(path);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  const runs::ImportedRun& run = imported->run;
  EXPECT_EQ(run.format, "deepspeed");
  EXPECT_EQ(run.frameworkVersion, "0.10.0");
  EXPECT_EQ(run.records, 2);
  EXPECT_EQ(*run.firstStep, 10);
  EXPECT_EQ(*run.lastStep, 20);
  EXPECT_EQ(*run.worldSize, 1);
  EXPECT_EQ(*run.globalBatch, 16);
  ASSERT_EQ(run.steps.size(), 2U);
  EXPECT_DOUBLE_EQ(run.steps[1].samplesPerSecond->value, 224.01234567890123);
  EXPECT_FALSE(run.partial);
  // DeepSpeed's own warm-up is its global steps 1 and 2, not its first two
  // printed records (steps 10 and 20 here): both count.
  EXPECT_EQ(imported->skippedRecords, 0);
  ASSERT_TRUE(imported->medians.samplesPerSecond.has_value());
  EXPECT_DOUBLE_EQ(*imported->medians.samplesPerSecond,
                   (222.88787331278564 + 224.01234567890123) / 2);
}

// A DeepSpeed log with steps_per_print 1: records for global steps 1 to 4.
std::string everyStepLog() {
  std::string text;
  for (int step = 1; step <= 4; ++step) {
    const std::string n = std::to_string(step);
    text += "[2023-08-02 00:41:17,935] [INFO] [logging.py:96:log_dist] [Rank 0] step=" + n +
            ", skipped=0, lr=[0.0001], mom=[(0.9, 0.999)]\n";
    text += "[2023-08-02 00:41:17,936] [INFO] [timer.py:215:stop] epoch=0/micro_step=" + n +
            "/global_step=" + n + ", RunningAvgSamplesPerSec=" +
            (step <= 2 ? std::string("-inf") : std::to_string(step * 10)) +
            ", CurrSamplesPerSec=" + std::to_string(step * 10) +
            ".0, MemAllocated=0.07GB, MaxMemAllocated=1.36GB\n";
  }
  return text;
}

TEST(DeepSpeedImport, TheDefaultWarmUpIsGlobalStepsOneAndTwo) {
  const auto dir = std::filesystem::temp_directory_path() / "tb_deepspeed_warm_up";
  std::filesystem::create_directories(dir);
  const auto path = dir / "ds.log";
  std::ofstream(path) << everyStepLog();
  const auto imported = importLog(path);
  ImportOptions none;
  none.skipFirst = 0;
  const auto all = importLog(path, none);
  ImportOptions one;
  one.skipFirst = 1;
  const auto afterOne = importLog(path, one);
  std::filesystem::remove_all(dir);

  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.format, "deepspeed");
  EXPECT_EQ(imported->run.records, 4);
  EXPECT_EQ(imported->skippedRecords, 2);  // the records of steps 1 and 2
  EXPECT_DOUBLE_EQ(*imported->medians.samplesPerSecond, (30.0 + 40.0) / 2);
  // --skip-first N counts records, whatever their steps.
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->skippedRecords, 0);
  EXPECT_DOUBLE_EQ(*all->medians.samplesPerSecond, (20.0 + 30.0) / 2);
  ASSERT_TRUE(afterOne.ok()) << afterOne.error().message;
  EXPECT_EQ(afterOne->skippedRecords, 1);
  EXPECT_DOUBLE_EQ(*afterOne->medians.samplesPerSecond, 30.0);
}

TEST(DeepSpeedImport, TruncatedLogKeepsTheWholeLinesAndIsPartial) {
  const auto imported = importLog(test::fixture("deepspeed/truncated_mid_line.log"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  const runs::ImportedRun& run = imported->run;
  EXPECT_TRUE(run.partial);
  ASSERT_EQ(run.steps.size(), 2U);
  expectJobSamples(run.steps[0], 128.0);
  // Step 20's progress line is whole; its cut timer line is not read.
  EXPECT_EQ(run.steps[1].step, 20);
  EXPECT_DOUBLE_EQ(*run.steps[1].learningRate, 2e-5);
  EXPECT_FALSE(run.steps[1].samplesPerSecond.has_value());
}

TEST(DeepSpeedImport, MalformedLogIsRefusedWithFileAndLine) {
  const auto path = test::fixture("deepspeed/malformed_progress.log");
  const auto imported = importLog(path);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.error().kind, ErrorKind::Parse);
  EXPECT_NE(imported.error().message.find(path.string() + ":3: expected"), std::string::npos)
      << imported.error().message;
}

TEST(DeepSpeedImport, MixedTorchrunStreamIsDeepSpeed) {
  const auto imported = importLog(test::fixture("deepspeed/mixed_stream_torchrun.log"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.format, "deepspeed");
  EXPECT_EQ(imported->run.records, 2);
}

}  // namespace
}  // namespace tb::logs
