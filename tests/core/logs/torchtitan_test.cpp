// torchtitan's step line in each of its versions (the format history of
// MetricsProcessor.log, the logger and torchrun prefixes, the
// Color codes). The fixtures under tests/data/logs/torchtitan/ are built from
// those format strings; the 2026-01 one follows the dudeperf3ct W&B console
// excerpt (bare time stamp lines, `...` elision, a [GC] line), the 2025-06
// one the tutorial's `[rank0]:[titan]` line (step 10 is that line verbatim,
// coloured as the code colours it).
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "format_parser.hpp"
#include "line_reader.hpp"
#include "log_text.hpp"
#include "tb/logs/log_import.hpp"

namespace tb::logs::detail {
namespace {

namespace fs = std::filesystem;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

fs::path fixture(const char* name) { return fs::path(TB_LOG_FIXTURES) / "torchtitan" / name; }

class RecordingSink final : public StepSink {
 public:
  void add(const runs::ImportedStep& step) override { steps.push_back(step); }
  std::vector<runs::ImportedStep> steps;
};

struct Read {
  std::vector<runs::ImportedStep> steps;
  runs::ImportedRun run;
};

// The importer's second pass, without detection: every cleaned line to the
// torchtitan format.
Read readFixture(const char* name) {
  Read out;
  auto reader = LineReader::open(fixture(name));
  EXPECT_TRUE(reader.ok());
  if (!reader.ok()) return out;
  const auto format = makeTorchtitanFormat(name);
  RecordingSink sink;
  std::string scratch;
  std::string_view line;
  while (reader->next(line)) {
    const Status fed = format->feed(cleanLine(line, scratch), reader->lineNumber(), sink);
    EXPECT_TRUE(fed.ok()) << (fed.ok() ? "" : fed.error().message);
  }
  EXPECT_FALSE(reader->error().has_value());
  EXPECT_TRUE(format->finish(out.run, reader->lastLineUnterminated(), sink).ok());
  out.steps = std::move(sink.steps);
  return out;
}

std::vector<std::int64_t> stepNumbers(const std::vector<runs::ImportedStep>& steps) {
  std::vector<std::int64_t> numbers;
  for (const auto& step : steps) numbers.push_back(step.step);
  return numbers;
}

TEST(Torchtitan, ReadsThe2024FormatWithWpsAndNoTitanPrefix) {
  const Read read = readFixture("torchtitan_2024-03_wps.log");
  ASSERT_EQ(stepNumbers(read.steps), (std::vector<std::int64_t>{1, 10, 20, 30}));
  const runs::ImportedStep& first = read.steps[0];
  EXPECT_EQ(first.loss, 10.9281);
  EXPECT_EQ(first.memoryBytes, 9.40 * kGiB);
  ASSERT_TRUE(first.tokensPerSecond.has_value());
  EXPECT_EQ(first.tokensPerSecond->value, 1203.0);
  EXPECT_EQ(first.tokensPerSecond->scope, runs::RateScope::PerGpu);
  EXPECT_DOUBLE_EQ(*first.mfu, 0.0071);
  EXPECT_FALSE(first.tflopsPerGpu.has_value());
  EXPECT_FALSE(first.gradNorm.has_value());
  EXPECT_FALSE(first.stepTimeSeconds.has_value());
  const runs::ImportedStep& last = read.steps[3];
  EXPECT_EQ(last.loss, 7.5530);
  EXPECT_EQ(last.tokensPerSecond->value, 24960.0);
  EXPECT_DOUBLE_EQ(*last.mfu, 0.1470);
  EXPECT_EQ(read.run.memoryKind, "max_reserved");
  EXPECT_FALSE(read.run.plannedSteps.has_value());
}

TEST(Torchtitan, ReadsTpsAndTflopsBehindTheRank0PrefixAndSkipsValidation) {
  const Read read = readFixture("torchtitan_2025-06_rank0_tflops.log");
  // `validate step: 20 …` is the validation line, not a training record.
  ASSERT_EQ(stepNumbers(read.steps), (std::vector<std::int64_t>{1, 10, 20, 30}));
  const runs::ImportedStep& tutorial = read.steps[1];  // the tutorial's line
  EXPECT_EQ(tutorial.loss, 10.7069);
  EXPECT_EQ(tutorial.memoryBytes, 30.99 * kGiB);
  EXPECT_EQ(tutorial.tokensPerSecond->value, 7034.0);
  EXPECT_EQ(tutorial.tflopsPerGpu, 407.35);
  EXPECT_DOUBLE_EQ(*tutorial.mfu, 0.4119);
  EXPECT_EQ(read.steps[2].loss, 9.3120);
  EXPECT_EQ(read.steps[3].tokensPerSecond->value, 7068.0);
}

TEST(Torchtitan, ReadsGradNormFromAWandbExport) {
  const Read read = readFixture("torchtitan_2026-01_wandb_grad_norm.log");
  // Bare time stamps, `...` and the [GC] line are skipped.
  ASSERT_EQ(stepNumbers(read.steps), (std::vector<std::int64_t>{1, 90, 100, 110}));
  const runs::ImportedStep& excerpt = read.steps[2];  // the excerpt's line
  EXPECT_EQ(excerpt.loss, 9.4939);
  EXPECT_EQ(excerpt.gradNorm, 18.25);
  EXPECT_EQ(excerpt.memoryBytes, 72.82 * kGiB);
  EXPECT_EQ(excerpt.tokensPerSecond->value, 55314.0);
  EXPECT_EQ(excerpt.tflopsPerGpu, 412.06);
  EXPECT_DOUBLE_EQ(*excerpt.mfu, 0.4166);
  EXPECT_EQ(read.steps[0].gradNorm, 41.25);
  EXPECT_EQ(read.steps[3].gradNorm, 17.625);
}

TEST(Torchtitan, ReadsTheFiveDecimalLossAndMfuNotAvailable) {
  const Read read = readFixture("torchtitan_2026-03_fp8_mfu_na.log");
  ASSERT_EQ(stepNumbers(read.steps), (std::vector<std::int64_t>{1, 10, 20}));
  EXPECT_EQ(read.steps[0].loss, 11.98231);
  EXPECT_EQ(read.steps[2].loss, 9.01552);
  EXPECT_EQ(read.steps[2].gradNorm, 8.3125);
  EXPECT_EQ(read.steps[1].tokensPerSecond->value, 12406.0);
  EXPECT_EQ(read.steps[1].tflopsPerGpu, 744.36);
  for (const auto& step : read.steps)
    EXPECT_FALSE(step.mfu.has_value()) << step.step;  // `mfu: N/A`
}

TEST(Torchtitan, ClaimsStepLinesAndNothingElse) {
  EXPECT_TRUE(
      torchtitanClaimsLine("[titan] 2026-01-09 19:02:58,105 - root - INFO - step: 100  loss:  "
                           "9.4939  grad_norm: 18.2500  "
                           "memory: 72.82GiB(91.97%)  tps: 55,314  tflops: 412.06  mfu: 41.66%"));
  EXPECT_TRUE(torchtitanClaimsLine(
      "step:  1  loss: 10.9281  memory:  9.40GiB(11.87%)  wps: 1,203  mfu: 0.71%"));
  for (const char* line : {
           "validate step: 20  loss:  9.4011  memory: 31.02GiB(32.65%)  tps: 21,540",
           "[titan] 2026-01-09 19:03:41,340 - root - INFO - [GC] Performing periodic GC collection "
           "took 0.00 seconds",
           "2026-01-09 19:02:58",
           "...",
           // NeMo 2: `global_step:` and `reduced_train_loss:` are other keys.
           "Training epoch 0, iteration 1/249 | lr: 3.922e-06 | global_batch_size: 8 | "
           "global_step: 1 | "
           "reduced_train_loss: 1.653 | train_step_timing in s: 2.505 | consumed_samples: 16",
           // DeepSpeed's pipeline engine: `steps:`, no token rate.
           "steps: 10 loss: 2.3456 iter time (s): 0.512 samples/sec: 31.250",
           " [2024-09-03 15:56:55] iteration       20/  500000 | consumed samples:        20480 | "
           "lm loss: 1.064275E+01 |",
       })
    EXPECT_FALSE(torchtitanClaimsLine(line)) << line;
}

TEST(Torchtitan, AForkStepCountGivesThePlannedSteps) {
  const auto format = makeTorchtitanFormat("fork.log");
  RecordingSink sink;
  ASSERT_TRUE(
      format
          ->feed("[titan] 2025-03-01 10:00:00,000 - root - INFO - step: 640/644 = 99.3789%  "
                 "loss:  2.3456  memory: 40.12GiB(50.66%)  tps: 9,876  tflops: 123.45  mfu: 12.48% "
                 " it/s: 1.23",
                 7, sink)
          .ok());
  runs::ImportedRun run;
  ASSERT_TRUE(format->finish(run, false, sink).ok());
  EXPECT_EQ(run.plannedSteps, 644);
  ASSERT_EQ(sink.steps.size(), 1U);
  EXPECT_EQ(sink.steps[0].step, 640);
  EXPECT_EQ(sink.steps[0].loss, 2.3456);
  EXPECT_EQ(sink.steps[0].tokensPerSecond->value, 9876.0);
}

TEST(Torchtitan, ABadValueIsAParseErrorNamingTheLine) {
  const auto format = makeTorchtitanFormat("train.log");
  RecordingSink sink;
  // The error waits for the next line, which shows the bad line was whole.
  ASSERT_TRUE(format->feed("step: 5  loss: abc  memory:  1.00GiB(1.00%)  tps: 10", 7, sink).ok());
  const Status bad =
      format->feed("[titan] 2025-03-01 10:00:00,000 - root - INFO - [GC] done", 8, sink);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::Parse);
  EXPECT_EQ(bad.error().message, "train.log:7: expected a number after 'loss:', found 'abc'");

  const auto another = makeTorchtitanFormat("train.log");
  ASSERT_TRUE(another->feed("step: 6  loss: 1.5  memory: lots  tps: 10", 8, sink).ok());
  runs::ImportedRun run;
  const Status badMemory = another->finish(run, false, sink);  // the file's last line, whole
  ASSERT_FALSE(badMemory.ok());
  EXPECT_NE(badMemory.error().message.find("train.log:8: expected memory as"), std::string::npos);
  EXPECT_TRUE(sink.steps.empty());
}

TEST(Torchtitan, TheRecordHeldBackIsKeptWhenTheCutLastLineWasWithheld) {
  // The importer never feeds a last line without its newline (`tps: 7,0` of
  // 7,034 would read as 70): finish() hears of it, and the whole line before
  // it is a record.
  const auto format = makeTorchtitanFormat("train.log");
  RecordingSink sink;
  ASSERT_TRUE(
      format->feed("step: 10  loss:  9.4939  memory: 72.82GiB(91.97%)  tps: 55,314", 1, sink).ok());
  runs::ImportedRun run;
  ASSERT_TRUE(format->finish(run, true, sink).ok());
  EXPECT_EQ(stepNumbers(sink.steps), std::vector<std::int64_t>{10});
}

TEST(Torchtitan, ImportsWithMediansOfEveryRecordByDefault) {
  auto imported = importLog(fixture("torchtitan_2026-01_wandb_grad_norm.log"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.format, "torchtitan");
  EXPECT_EQ(imported->run.framework, "torchtitan");
  EXPECT_EQ(imported->run.records, 4);
  EXPECT_EQ(imported->run.firstStep, 1);
  EXPECT_EQ(imported->run.lastStep, 110);
  EXPECT_FALSE(imported->run.partial);
  // torchtitan's step 1 is slow, but torchtitan discounts nothing
  // itself: the default leaves it in (--skip-first 1 drops it).
  EXPECT_EQ(imported->skippedRecords, 0);
  // Medians of steps 1, 90, 100, 110.
  EXPECT_EQ(imported->medians.tokensPerSecondPerGpu, (55102.0 + 55290.0) / 2);
  EXPECT_DOUBLE_EQ(*imported->medians.tflopsPerGpu, (410.48 + 411.88) / 2);
  EXPECT_DOUBLE_EQ(*imported->medians.mfu, (41.50 / 100.0 + 41.64 / 100.0) / 2);
  EXPECT_FALSE(imported->medians.samplesPerSecond.has_value());
  EXPECT_FALSE(imported->medians.stepTimeSeconds.has_value());
  EXPECT_EQ(imported->missing,
            (std::vector<std::string>{"learning_rate", "step_time_s", "samples_per_s", "world_size",
                                      "global_batch", "sequence_length"}));
  EXPECT_EQ(imported->hints,
            (std::vector<std::string>{"step_time_s needs --gpus, --seq and --global-batch",
                                      "samples_per_s needs --gpus and --seq"}));
}

TEST(Torchtitan, SkipFirstOneLeavesOutTheSlowFirstStep) {
  ImportOptions options;
  options.skipFirst = 1;
  auto imported = importLog(fixture("torchtitan_2026-01_wandb_grad_norm.log"), options);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->skippedRecords, 1);
  // Medians of steps 90, 100, 110.
  EXPECT_EQ(imported->medians.tokensPerSecondPerGpu, 55290.0);
  EXPECT_EQ(imported->medians.tflopsPerGpu, 411.88);
  EXPECT_DOUBLE_EQ(*imported->medians.mfu, 0.4164);
}

TEST(Torchtitan, ImportWithTheJobShapeDerivesSamplesAndStepTime) {
  ImportOptions options;
  options.skipFirst = 1;
  options.gpus = 2;
  options.sequenceLength = 2048;
  options.globalBatch = 232;
  auto imported = importLog(fixture("torchtitan_2026-01_wandb_grad_norm.log"), options);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.worldSize, 2);
  EXPECT_EQ(imported->medians.tokensPerSecondPerGpu, 55290.0);
  EXPECT_DOUBLE_EQ(*imported->medians.samplesPerSecond, 55290.0 * 2 / 2048);
  EXPECT_DOUBLE_EQ(*imported->medians.stepTimeSeconds, 232.0 * 2048 / (2 * 55290.0));
  EXPECT_TRUE(imported->hints.empty());
  // The file still did not say them.
  EXPECT_EQ(imported->missing,
            (std::vector<std::string>{"learning_rate", "step_time_s", "samples_per_s", "world_size",
                                      "global_batch", "sequence_length"}));
}

TEST(Torchtitan, AKilledRunImportsItsCompleteLinesAsPartial) {
  auto imported = importLog(fixture("torchtitan_killed_mid_line.log"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.records, 3);  // `tps: 7,0` of step 30 was cut off
  EXPECT_EQ(imported->run.lastStep, 20);
  EXPECT_TRUE(imported->run.partial);
  EXPECT_NE(imported->run.partialReason.find("ends mid-line"), std::string::npos)
      << imported->run.partialReason;
  // Steps 1, 10 and 20 (nothing is skipped by default): 1,024, 7,034, 7,102.
  EXPECT_EQ(imported->medians.tokensPerSecondPerGpu, 7034.0);
}

}  // namespace
}  // namespace tb::logs::detail
