// Megatron-LM and Megatron-DeepSpeed console logs, read line by line and
// through the importer. The fixtures follow docs/LOG_FORMATS.md's Megatron
// sections: megatron/core_r0.8_log_throughput.log is a real excerpt
// (fixstars/mdk, core_r0.8.0) verbatim; the other megatron/ fixtures are
// built from the training_log code of NVIDIA/Megatron-LM
// (megatron/training/training.py) and its fields (timestamp since core_v0.6,
// microseconds since core_v0.16, lr `.3E` before core_v0.6, fields that drop
// out when NaN or None, `--log-energy`, `skipped samples`, `_print_args`'
// dump, the `cached` names of the old memory report, `srun -l` and torchrun
// prefixes); primus_fork.log is AMD Primus's line as public fixtures show
// it; megatron-deepspeed/ follows the training_log of
// deepspeedai/Megatron-DeepSpeed and the argonne-lcf excerpt, with the
// fields it elides filled in from that code.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "format_parser.hpp"
#include "line_feed_support.hpp"
#include "tb/logs/log_import.hpp"

namespace tb::logs {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

test::FedLines readMegatron(const std::string& relative) {
  const auto format = detail::makeMegatronFormat(relative);
  return test::feedText(*format, test::readFixture(relative));
}

test::FedLines readMegatronDeepSpeed(const std::string& relative) {
  const auto format = detail::makeMegatronDeepSpeedFormat(relative);
  return test::feedText(*format, test::readFixture(relative));
}

test::FedLines feedLines(std::unique_ptr<detail::LineFormat> format, const std::string& text) {
  return test::feedText(*format, text);
}

// ------------------------------------------------------------ versions --

TEST(MegatronLog, CoreR08WithTimestampAndThroughputReadsEveryField) {
  const auto fed = readMegatron("megatron/core_r0.8_log_throughput.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 2U);

  const auto& first = fed.steps[0];
  EXPECT_EQ(first.step, 10);
  EXPECT_NEAR(*first.stepTimeSeconds, 13.0353, 1e-12);
  EXPECT_DOUBLE_EQ(*first.tflopsPerGpu, 812.5);
  EXPECT_DOUBLE_EQ(*first.learningRate, 0.0);
  EXPECT_EQ(*first.globalBatch, 1024);
  ASSERT_TRUE(first.samplesPerSecond.has_value());
  EXPECT_NEAR(first.samplesPerSecond->value, 1024.0 / 13.0353, 1e-9);
  EXPECT_EQ(first.samplesPerSecond->scope, runs::RateScope::Job);
  EXPECT_FALSE(first.tokensPerSecond.has_value());  // Megatron-LM prints no tokens/s
  // Every update of the window was skipped (fp16 loss-scale search): no lm
  // loss and no grad norm are printed, and the record says so.
  EXPECT_FALSE(first.loss.has_value());
  EXPECT_FALSE(first.gradNorm.has_value());
  EXPECT_TRUE(first.skippedUpdate);
  EXPECT_FALSE(first.memoryBytes.has_value());

  const auto& second = fed.steps[1];
  EXPECT_EQ(second.step, 20);
  EXPECT_NEAR(*second.stepTimeSeconds, 12.1378, 1e-12);
  EXPECT_DOUBLE_EQ(*second.tflopsPerGpu, 872.5);
  EXPECT_DOUBLE_EQ(*second.learningRate, 6.976744e-07);
  EXPECT_DOUBLE_EQ(*second.loss, 10.64275);
  EXPECT_DOUBLE_EQ(*second.gradNorm, 47.021);
  EXPECT_TRUE(second.skippedUpdate);  // 5 of the window's 10
  // The memory report after iteration 20 belongs to that record: MB is MiB.
  EXPECT_DOUBLE_EQ(*second.memoryBytes, 75078.4326171875 * kMiB);

  EXPECT_EQ(fed.run.memoryKind, "max_allocated");
  EXPECT_EQ(*fed.run.plannedSteps, 500000);
  EXPECT_EQ(*fed.run.globalBatch, 1024);  // every line's, there being no argument dump
  EXPECT_FALSE(fed.run.worldSize.has_value());
  EXPECT_FALSE(fed.run.sequenceLength.has_value());
  EXPECT_TRUE(fed.run.frameworkVersion.empty());  // Megatron-LM prints none
}

TEST(MegatronLog, BeforeCoreV06WithoutTimestampReadsTheArgumentDump) {
  const auto fed = readMegatron("megatron/pre_core_v0.6_no_timestamp.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  // The validation line, the checkpoint lines, the timers and the separators
  // are Megatron's too, but no training records.
  ASSERT_EQ(fed.steps.size(), 3U);
  EXPECT_EQ(fed.steps[0].step, 100);
  EXPECT_EQ(fed.steps[1].step, 200);
  EXPECT_EQ(fed.steps[2].step, 300);

  const auto& first = fed.steps[0];
  EXPECT_NEAR(*first.stepTimeSeconds, 0.8123, 1e-12);
  EXPECT_DOUBLE_EQ(*first.learningRate, 1.5e-4);  // `.3E` before core_v0.6
  EXPECT_DOUBLE_EQ(*first.loss, 7.123456);
  EXPECT_DOUBLE_EQ(*first.gradNorm, 1.234);
  EXPECT_TRUE(first.skippedUpdate);
  EXPECT_FALSE(first.tflopsPerGpu.has_value());  // no --log-throughput
  EXPECT_NEAR(first.samplesPerSecond->value, 256.0 / 0.8123, 1e-9);
  // The old report says `cached`; `max allocated` is read either way.
  EXPECT_DOUBLE_EQ(*first.memoryBytes, 9876.25 * kMiB);
  EXPECT_FALSE(fed.steps[1].memoryBytes.has_value());
  EXPECT_FALSE(fed.steps[1].skippedUpdate);
  EXPECT_DOUBLE_EQ(*fed.steps[2].loss, 6.101234);

  EXPECT_EQ(*fed.run.worldSize, 8);
  EXPECT_EQ(*fed.run.sequenceLength, 2048);
  EXPECT_EQ(*fed.run.globalBatch, 256);
  EXPECT_EQ(*fed.run.plannedSteps, 300);
  EXPECT_EQ(fed.run.memoryKind, "max_allocated");
}

TEST(MegatronLog, CoreV016LogsTheFirstIterationAndDropsNanFields) {
  // torchrun's `[default0]:` on every line, microsecond time stamps, energy
  // and MoE fields, a window where every iteration was NaN.
  const auto fed = readMegatron("megatron/core_v0.16_first_iteration.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 3U);

  const auto& first = fed.steps[0];
  EXPECT_EQ(first.step, 1);
  EXPECT_NEAR(*first.stepTimeSeconds, 5.0123, 1e-12);
  EXPECT_DOUBLE_EQ(*first.tflopsPerGpu, 95.1);
  EXPECT_DOUBLE_EQ(*first.loss, 12.1);  // `lm loss`, not load_balancing_loss
  EXPECT_DOUBLE_EQ(*first.gradNorm, 25.5);
  EXPECT_FALSE(first.skippedUpdate);
  EXPECT_DOUBLE_EQ(*first.memoryBytes, 30720.25 * kMiB);

  const auto& nan = fed.steps[1];
  EXPECT_EQ(nan.step, 50);
  EXPECT_FALSE(nan.loss.has_value());
  EXPECT_FALSE(nan.gradNorm.has_value());
  EXPECT_TRUE(nan.skippedUpdate);
  EXPECT_NEAR(*nan.stepTimeSeconds, 0.5124, 1e-12);
  EXPECT_DOUBLE_EQ(*nan.learningRate, 5e-5);

  EXPECT_EQ(fed.steps[2].step, 100);
  EXPECT_DOUBLE_EQ(*fed.steps[2].loss, 9.876543);
  EXPECT_DOUBLE_EQ(*fed.steps[2].tflopsPerGpu, 937.0);

  EXPECT_EQ(*fed.run.worldSize, 8);
  EXPECT_EQ(*fed.run.sequenceLength, 4096);
  EXPECT_EQ(*fed.run.globalBatch, 32);
  EXPECT_EQ(*fed.run.plannedSteps, 100);
}

TEST(MegatronLog, PrimusForkTakesEachFieldsWindowValue) {
  // Primus prints `window/running` and `window (avg running)`, and its own
  // logger prefix; its extra fields are ignored.
  const auto fed = readMegatron("megatron/primus_fork.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 2U);

  const auto& first = fed.steps[0];
  EXPECT_EQ(first.step, 12125);
  EXPECT_NEAR(*first.stepTimeSeconds, 2.7013, 1e-12);
  EXPECT_DOUBLE_EQ(*first.tflopsPerGpu, 210.5);
  ASSERT_TRUE(first.tokensPerSecond.has_value());
  EXPECT_DOUBLE_EQ(first.tokensPerSecond->value, 12130.4);
  EXPECT_EQ(first.tokensPerSecond->scope, runs::RateScope::PerGpu);
  EXPECT_DOUBLE_EQ(*first.loss, 2.352391);
  EXPECT_DOUBLE_EQ(*first.gradNorm, 0.132);
  EXPECT_FALSE(first.memoryBytes.has_value());  // `hip mem usage` is a fork's field

  const auto& second = fed.steps[1];
  EXPECT_DOUBLE_EQ(*second.tflopsPerGpu, 615.5);
  EXPECT_DOUBLE_EQ(second.tokensPerSecond->value, 11941.8);
  EXPECT_EQ(*fed.run.plannedSteps, 36000);
}

// ------------------------------------------------- mixed and bad input --

TEST(MegatronLog, MixedStreamSkipsOtherLoggersAndTakesTheLargestRanksMemory) {
  // `srun -l` prefixes, NCCL and Python warnings, wandb; the memory reports
  // of two ranks come before the iteration line the last rank prints.
  const auto fed = readMegatron("megatron/mixed_stream_srun.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 2U);
  EXPECT_EQ(fed.steps[0].step, 20);
  EXPECT_DOUBLE_EQ(*fed.steps[0].memoryBytes, 2100.5 * kMiB);
  EXPECT_NEAR(*fed.steps[0].stepTimeSeconds, 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(*fed.steps[0].loss, 8.0);
  EXPECT_EQ(fed.steps[1].step, 40);
  EXPECT_FALSE(fed.steps[1].memoryBytes.has_value());
  EXPECT_EQ(*fed.run.worldSize, 8);
  EXPECT_EQ(*fed.run.sequenceLength, 1024);
  EXPECT_EQ(*fed.run.plannedSteps, 40);
}

TEST(MegatronLog, MalformedIterationLineNamesOriginAndLine) {
  const auto fed = readMegatron("megatron/malformed_iteration.log");
  ASSERT_FALSE(fed.status.ok());
  EXPECT_EQ(fed.status.error().kind, ErrorKind::Parse);
  const std::string& message = fed.status.error().message;
  EXPECT_NE(message.find("megatron/malformed_iteration.log:2: expected 'iteration N/ M |'"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("iteration abc/"), std::string::npos) << message;
}

TEST(MegatronLog, ABadHeadWithMegatronsFieldsIsAnError) {
  const auto fed = feedLines(detail::makeMegatronFormat("run.log"),
                             "iteration abc/ | consumed samples: 10 | global batch size: 1 |\n");
  ASSERT_FALSE(fed.status.ok());
  EXPECT_NE(fed.status.error().message.find("run.log:1: expected 'iteration N/ M |'"),
            std::string::npos)
      << fed.status.error().message;
}

TEST(MegatronLog, AnotherProgramsIterationCountIsNotAnError) {
  // Without Megatron's `| key: value` fields the line is another logger's.
  const auto fed = feedLines(
      detail::makeMegatronFormat("run.log"),
      "iteration 3/5: loss 1.2\n"
      "iteration abc/\n"
      "iteration 4/5 | done\n"
      " iteration 10/ 100 | consumed samples: 10 | elapsed time per iteration (ms): 100.0 | "
      "global batch size: 1 |\n");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 1U);
  EXPECT_EQ(fed.steps[0].step, 10);
}

TEST(MegatronLog, AGlobalBatchThatIsNoWholeCountIsAnError) {
  // inf would pass a plain `v == floor(v)` test and make the cast undefined.
  for (const char* batch : {"inf", "nan", "1e300", "2.5"}) {
    const auto fed = feedLines(
        detail::makeMegatronFormat("run.log"),
        std::string(" iteration 10/ 100 | elapsed time per iteration (ms): 100.0 | global batch "
                    "size: ") +
            batch + " |\n");
    ASSERT_FALSE(fed.status.ok()) << batch;
    EXPECT_EQ(
        fed.status.error().message,
        std::string("run.log:1: expected a number for 'global batch size', found '") + batch + "'");
  }
}

TEST(MegatronLog, FieldThatIsNoNumberNamesItsKey) {
  const auto fed =
      feedLines(detail::makeMegatronFormat("run.log"),
                "ok\n iteration 10/ 100 | consumed samples: 10 | elapsed time per iteration (ms): "
                "fast | global batch size: 1 |\n");
  ASSERT_FALSE(fed.status.ok());
  EXPECT_EQ(fed.status.error().message,
            "run.log:2: expected a number for 'elapsed time per iteration (ms)', found 'fast'");
}

TEST(MegatronLog, OtherWordsAfterIterationAreNotItsLines) {
  const auto fed = feedLines(detail::makeMegatronFormat("run.log"),
                             "iteration 100 done\n"
                             " validation loss at iteration 100 | lm loss value: 5.0 |\n"
                             "exiting program at iteration 100\n"
                             "Evaluating iter 10/100\n");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  EXPECT_TRUE(fed.steps.empty());
}

// ----------------------------------------------------------- detection --

TEST(MegatronLog, ClaimsOnlyItsOwnIterationLines) {
  const std::string megatronLine =
      " [2024-09-03 15:54:54] iteration       10/  500000 | consumed samples:        10240 | "
      "elapsed time "
      "per iteration (ms): 13035.3 | learning rate: 0.000000E+00 | global batch size:  1024 | "
      "number of "
      "skipped iterations:  10 | number of nan iterations:   0 |";
  const std::string forkLine =
      " iteration      199/  317892 | consumed samples:       152832 | consumed tokens:    "
      "625999872 | "
      "elapsed time per iteration (ms): 14287.5 | learning rate: 2.407E-04 | global batch size:   "
      "768 | "
      "samples per second: 53.753 | tokens per gpu per second (tgs): 9173.896 | TFLOPs: 59.12 |";
  EXPECT_TRUE(detail::megatronClaimsLine(megatronLine));
  EXPECT_FALSE(detail::megatronDeepSpeedClaimsLine(megatronLine));
  EXPECT_TRUE(detail::megatronDeepSpeedClaimsLine(forkLine));
  EXPECT_FALSE(detail::megatronClaimsLine(forkLine));
  // The fork's argument dump comes before the DeepSpeed engine's lines.
  EXPECT_TRUE(detail::megatronDeepSpeedClaimsLine(
      "  deepspeed ....................................... True"));
  EXPECT_FALSE(
      detail::megatronClaimsLine("  deepspeed ....................................... True"));

  // NeMo 2's line has the iteration grammar but none of Megatron's fields.
  EXPECT_FALSE(detail::megatronClaimsLine(
      "Training epoch 0, iteration 5/99 | lr: 1.5e-05 | global_batch_size: 32 | global_step: 5 | "
      "reduced_train_loss: 10.79 | train_step_timing in s: 0.8754 | consumed_samples: 192"));
  EXPECT_FALSE(detail::megatronClaimsLine(
      "[Rank 0] (after 20 iterations) memory (MB) | allocated: 1.0 | max allocated: 2.0"));
  EXPECT_FALSE(
      detail::megatronClaimsLine(" validation loss at iteration 100 | lm loss value: 5.0 |"));
  EXPECT_FALSE(detail::megatronClaimsLine(
      " [2024-06-20 08:02:13] iteration abc/ 100 | elapsed time per iteration (ms): 1 |"));
  EXPECT_FALSE(detail::megatronClaimsLine("step: 10  loss: 7.1  tps: 1,234"));
}

// ------------------------------------------------------- Megatron-DeepSpeed --

TEST(MegatronDeepSpeedLog, ReadsTheForksRatesAndTheArgumentDump) {
  const auto fed = readMegatronDeepSpeed("megatron-deepspeed/argonne_gpt_ds0.14.log");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  // The DeepSpeed engine's own lines in the stream are not records.
  ASSERT_EQ(fed.steps.size(), 2U);

  const auto& first = fed.steps[0];
  EXPECT_EQ(first.step, 199);
  EXPECT_NEAR(*first.stepTimeSeconds, 14.2875, 1e-12);
  EXPECT_DOUBLE_EQ(*first.learningRate, 2.407e-4);
  EXPECT_DOUBLE_EQ(*first.loss, 5.905366);
  EXPECT_FALSE(first.gradNorm.has_value());
  EXPECT_EQ(*first.globalBatch, 768);
  ASSERT_TRUE(first.samplesPerSecond.has_value());
  EXPECT_DOUBLE_EQ(first.samplesPerSecond->value, 53.753);  // printed, not derived
  EXPECT_EQ(first.samplesPerSecond->scope, runs::RateScope::Job);
  ASSERT_TRUE(first.tokensPerSecond.has_value());
  EXPECT_DOUBLE_EQ(first.tokensPerSecond->value, 9173.896);
  EXPECT_EQ(first.tokensPerSecond->scope, runs::RateScope::PerGpu);
  EXPECT_DOUBLE_EQ(*first.tflopsPerGpu, 59.12);
  EXPECT_DOUBLE_EQ(*first.memoryBytes, 61234.75 * kMiB);

  const auto& second = fed.steps[1];
  EXPECT_EQ(second.step, 200);
  EXPECT_DOUBLE_EQ(*second.gradNorm, 1.234);
  EXPECT_DOUBLE_EQ(*second.tflopsPerGpu, 59.11);  // `params(B)` and `moe params(B)` are ignored

  EXPECT_EQ(*fed.run.worldSize, 24);
  EXPECT_EQ(*fed.run.sequenceLength, 4096);
  EXPECT_EQ(*fed.run.globalBatch, 768);
  EXPECT_EQ(*fed.run.plannedSteps, 317892);
  EXPECT_EQ(fed.run.memoryKind, "max_allocated");
}

TEST(MegatronDeepSpeedLog, AnActualSeqlenThatIsNoWholeCountIsAnError) {
  for (const char* seqlen : {"inf", "nan", "4096.5", "1e300"}) {
    const auto fed = feedLines(
        detail::makeMegatronDeepSpeedFormat("run.log"),
        std::string(" iteration 1/ 10 | consumed tokens: 16384 | elapsed time per iteration "
                    "(ms): 1000.0 | actual seqlen: ") +
            seqlen + " | samples per second: 8.000 |\n");
    ASSERT_FALSE(fed.status.ok()) << seqlen;
    EXPECT_EQ(
        fed.status.error().message,
        std::string("run.log:1: expected a number for 'actual seqlen', found '") + seqlen + "'");
  }
}

TEST(MegatronLog, AnUnboundedWorldSizeIsNotRead) {
  for (const char* size : {"99999999999", "16777216", "0"}) {
    const auto fed = feedLines(
        detail::makeMegatronFormat("run.log"),
        std::string("------------------------ arguments ------------------------\n"
                    "  world_size ...................................... ") +
            size +
            "\n-------------------- end of arguments ---------------------\n"
            " iteration 10/ 100 | elapsed time per iteration (ms): 100.0 | global batch size: "
            "1 |\n");
    ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
    EXPECT_FALSE(fed.run.worldSize.has_value()) << size << " -> " << *fed.run.worldSize;
  }
  const auto fed = feedLines(detail::makeMegatronFormat("run.log"),
                             "------------------------ arguments ------------------------\n"
                             "  world_size ...................................... 16777215\n"
                             "-------------------- end of arguments ---------------------\n");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  EXPECT_EQ(fed.run.worldSize, 16777215);
}

TEST(MegatronDeepSpeedLog, SequenceLengthFromActualSeqlenWithoutArguments) {
  const auto fed = feedLines(
      detail::makeMegatronDeepSpeedFormat("run.log"),
      " iteration        1/      10 | consumed samples:            8 | consumed tokens:        "
      "16384 | elapsed "
      "time per iteration (ms): 1000.0 | learning rate: 1.000E-04 | global batch size:     8 | lm "
      "loss: "
      "1.000000E+01 | actual seqlen:  2048 | number of skipped iterations:   0 | number of nan "
      "iterations:   0 | "
      "samples per second: 8.000 | tokens per gpu per second (tgs): 2048.000 | TFLOPs: 10.00 |\n");
  ASSERT_TRUE(fed.status.ok()) << fed.status.error().message;
  ASSERT_EQ(fed.steps.size(), 1U);
  EXPECT_EQ(*fed.run.sequenceLength, 2048);
  EXPECT_EQ(*fed.run.globalBatch, 8);
}

// ------------------------------------------------------- whole importer --

TEST(MegatronImport, DetectsAndImportsAFixture) {
  const auto path = test::fixture("megatron/core_r0.8_log_throughput.log");
  const auto detected = detectFormat(path);
  ASSERT_TRUE(detected.ok()) << detected.error().message;
  EXPECT_EQ(*detected, Format::Megatron);

  const auto imported = importLog(path);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  const runs::ImportedRun& run = imported->run;
  EXPECT_EQ(run.format, "megatron");
  EXPECT_EQ(run.records, 2);
  EXPECT_EQ(*run.firstStep, 10);
  EXPECT_EQ(*run.lastStep, 20);
  ASSERT_EQ(run.steps.size(), 2U);
  EXPECT_DOUBLE_EQ(*run.steps[1].memoryBytes, 75078.4326171875 * kMiB);
  // 20 of the 500000 planned iterations: the run stopped early.
  EXPECT_TRUE(run.partial);
  // Megatron-LM discounts no warm-up itself: the first window counts.
  EXPECT_EQ(imported->skippedRecords, 0);
  EXPECT_NEAR(*imported->medians.stepTimeSeconds, (13.0353 + 12.1378) / 2, 1e-12);
  EXPECT_DOUBLE_EQ(*imported->medians.tflopsPerGpu, (812.5 + 872.5) / 2);
  // --skip-first N still counts records.
  ImportOptions skipOne;
  skipOne.skipFirst = 1;
  const auto skipped = importLog(path, skipOne);
  ASSERT_TRUE(skipped.ok()) << skipped.error().message;
  EXPECT_EQ(skipped->skippedRecords, 1);
  EXPECT_NEAR(*skipped->medians.stepTimeSeconds, 12.1378, 1e-12);
}

TEST(MegatronImport, TruncatedLogImportsTheWholeLinesAndIsPartial) {
  const auto imported = importLog(test::fixture("megatron/truncated_mid_line.log"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  const runs::ImportedRun& run = imported->run;
  EXPECT_EQ(run.records, 2);
  EXPECT_EQ(*run.lastStep, 20);
  EXPECT_TRUE(run.partial);
  EXPECT_FALSE(run.partialReason.empty());
  ASSERT_EQ(run.steps.size(), 2U);
  EXPECT_NEAR(*run.steps[1].stepTimeSeconds, 0.1995, 1e-12);
}

TEST(MegatronImport, MalformedLogIsRefusedWithFileAndLine) {
  const auto path = test::fixture("megatron/malformed_iteration.log");
  const auto imported = importLog(path);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.error().kind, ErrorKind::Parse);
  EXPECT_NE(imported.error().message.find(path.string() + ":2: expected"), std::string::npos)
      << imported.error().message;
}

TEST(MegatronImport, MixedStreamIsStillMegatron) {
  const auto imported = importLog(test::fixture("megatron/mixed_stream_srun.log"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.format, "megatron");
  EXPECT_EQ(imported->run.records, 2);
  EXPECT_FALSE(imported->run.partial);  // iteration 40 of 40
}

TEST(MegatronDeepSpeedImport, DetectedBeforeTheDeepSpeedEngineLines) {
  const auto path = test::fixture("megatron-deepspeed/argonne_gpt_ds0.14.log");
  const auto detected = detectFormat(path);
  ASSERT_TRUE(detected.ok()) << detected.error().message;
  EXPECT_EQ(*detected, Format::MegatronDeepSpeed);
  const auto imported = importLog(path);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.format, "megatron-deepspeed");
  EXPECT_EQ(imported->run.records, 2);
  EXPECT_EQ(*imported->run.worldSize, 24);
}

}  // namespace
}  // namespace tb::logs
