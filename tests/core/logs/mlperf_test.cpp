// MLPerf Training's `:::MLLOG {json}` lines read into runs. The fixtures under
// tests/data/logs/mlperf/ follow section 6 of the training-log reference
// (docs/LOG_FORMATS.md, "MLPerf Training"): records encoded as mllog.py's
// _encode_log does (namespace, time_ms, event_type, key, value, metadata);
// gpt3_result.txt built around the two lines quoted from training_results_v3.1
// NVIDIA/results/eos-dfw_n1344_ngc23.09_nemo/gpt3/result_1.txt (cache_clear,
// the tracked_stats throughput line, both verbatim) with NVIDIA's GPT-3
// callback's keys (consumed tokens as the step, `train_step_timing in s`);
// llama2_70b_lora_srun.txt around the `0: `-prefixed line quoted from NVIDIA's
// llama2_70b_lora README (verbatim), with its callback's samples-per-second
// throughput and run_stop status.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "format_parser.hpp"
#include "line_feed_support.hpp"
#include "tb/logs/log_import.hpp"

namespace tb::logs {
namespace {

using runs::RateScope;
using test::feedText;
using test::fixture;
using test::readFixture;

test::FedLines readMlperf(std::string_view relative) {
  auto format = detail::makeMlperfFormat(fixture(relative).string());
  return feedText(*format, readFixture(relative));
}

test::FedLines mlperfText(std::string_view text) {
  auto format = detail::makeMlperfFormat("result_0.txt");
  return feedText(*format, text);
}

TEST(Mlperf, Gpt3TimeToTrainAndTokenThroughput) {
  const auto r = readMlperf("mlperf/gpt3_result.txt");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  // Four timing records and the throughput record; NeMo's own lines and the
  // `:::MLLOG Weight initialization: …` print are not records.
  ASSERT_EQ(r.steps.size(), 5U);
  const auto& first = r.steps[0];
  EXPECT_EQ(first.step, 2688 * 2048);  // consumed tokens after one step
  EXPECT_DOUBLE_EQ(*first.stepTimeSeconds, 1.6);
  EXPECT_DOUBLE_EQ(*first.loss, 7.5);
  EXPECT_FALSE(first.samplesPerSecond);
  const auto& throughput = r.steps[4];
  EXPECT_EQ(throughput.step, 1211105280);
  ASSERT_TRUE(throughput.tokensPerSecond);
  EXPECT_DOUBLE_EQ(throughput.tokensPerSecond->value, 5154997.267404211);
  EXPECT_EQ(throughput.tokensPerSecond->scope, RateScope::Job);
  EXPECT_FALSE(throughput.samplesPerSecond);

  ASSERT_TRUE(r.run.summary);
  EXPECT_DOUBLE_EQ(*r.run.summary->timeToTrainSeconds, (1696567990001.0 - 1696565390001.0) / 1000.0);
  EXPECT_DOUBLE_EQ(*r.run.summary->runtimeSeconds, 2600.0);
  EXPECT_EQ(r.run.globalBatch, 2688);
  EXPECT_EQ(r.run.sequenceLength, 2048);
  EXPECT_FALSE(r.run.partial);
}

TEST(Mlperf, SrunPrefixedLlamaLoraSamplesThroughput) {
  const auto r = readMlperf("mlperf/llama2_70b_lora_srun.txt");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 8U);
  EXPECT_EQ(r.steps[0].step, 384);
  EXPECT_DOUBLE_EQ(r.steps[0].samplesPerSecond->value, 1.9001);
  const auto& last = r.steps.back();
  EXPECT_EQ(last.step, 3072);
  ASSERT_TRUE(last.samplesPerSecond);
  EXPECT_DOUBLE_EQ(last.samplesPerSecond->value, 1.9257918929116467);
  EXPECT_EQ(last.samplesPerSecond->scope, RateScope::Job);
  EXPECT_FALSE(last.tokensPerSecond);
  ASSERT_TRUE(r.run.summary);
  EXPECT_DOUBLE_EQ(*r.run.summary->timeToTrainSeconds, 300.98);
  EXPECT_EQ(r.run.globalBatch, 8);
  EXPECT_FALSE(r.run.sequenceLength);
  EXPECT_FALSE(r.run.partial);
}

TEST(Mlperf, AbortedRunHasADurationButNoTimeToTrain) {
  const auto r = readMlperf("mlperf/aborted_run.txt");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 1U);
  ASSERT_TRUE(r.run.summary);
  EXPECT_DOUBLE_EQ(*r.run.summary->runtimeSeconds, 600.0);
  EXPECT_FALSE(r.run.summary->timeToTrainSeconds);
  EXPECT_FALSE(r.run.partial);
}

TEST(Mlperf, RunWithoutRunStopIsPartial) {
  const auto r = readMlperf("mlperf/no_run_stop.txt");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 1U);
  EXPECT_EQ(r.steps[0].step, 16);
  EXPECT_DOUBLE_EQ(r.steps[0].samplesPerSecond->value, 3.25);
  EXPECT_DOUBLE_EQ(*r.steps[0].stepTimeSeconds, 4.9);
  EXPECT_FALSE(r.run.summary);
  EXPECT_TRUE(r.run.partial);
  EXPECT_NE(r.run.partialReason.find("run_stop"), std::string::npos) << r.run.partialReason;
  EXPECT_EQ(r.run.globalBatch, 16);
}

TEST(Mlperf, CorruptRecordNamesTheLine) {
  const auto r = mlperfText(
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"INTERVAL_START\", \"key\": \"run_start\", "
      "\"value\": null, \"metadata\": {}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 2000, \"key\": \n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 3000, \"event_type\": \"INTERVAL_END\", \"key\": \"run_stop\", "
      "\"value\": null, \"metadata\": {\"status\": \"success\"}}\n");
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.error().kind, ErrorKind::Parse);
  EXPECT_NE(r.status.error().message.find("result_0.txt:2: expected a JSON record after ':::MLLOG '"),
            std::string::npos)
      << r.status.error().message;
}

TEST(Mlperf, RecordWithoutKeyIsAnError) {
  const auto r = mlperfText(":::MLLOG {\"namespace\": \"\", \"time_ms\": 1000}\n");
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.error().message.find("result_0.txt:1: expected a string \"key\""), std::string::npos)
      << r.status.error().message;
}

TEST(Mlperf, CutOffLastLineMarksPartialWithoutAnError) {
  const auto r = mlperfText(
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"INTERVAL_START\", \"key\": \"run_start\", "
      "\"value\": null, \"metadata\": {}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 2000, \"event_type\": \"POINT_IN_TIME\", \"key\": \"tracked_stats\", "
      "\"value\": {\"throughput\": 2.0}, \"metadata\": {\"step\": 8}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 3000, \"event_type\": \"POINT_IN_TIME\", \"key\": \"tracked_stats\", "
      "\"value\": {\"throughput\": 2.");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 1U);
  EXPECT_DOUBLE_EQ(r.steps[0].samplesPerSecond->value, 2.0);
  EXPECT_TRUE(r.run.partial);
  EXPECT_NE(r.run.partialReason.find("cut off"), std::string::npos) << r.run.partialReason;
}

TEST(Mlperf, MixedStreamWithNanLossAndOtherLoggers) {
  const auto r = mlperfText(
      "[NeMo I 2024-07-15 06:50:05 nemo_logging:349] Loading model\n"
      "Training epoch 0, iteration 0/9 | reduced_train_loss: 10.5 | global_step: 0\n"
      "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"INTERVAL_START\", \"key\": \"run_start\", "
      "\"value\": null, \"metadata\": {}}\n"
      " [2024-07-15 06:50:06] iteration        1/      10 | consumed samples:            8 |\n"
      "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 2000, \"event_type\": \"POINT_IN_TIME\", \"key\": \"tracked_stats\", "
      "\"value\": {\"train_step_time\": 1.5, \"reduced_train_loss\": NaN}, \"metadata\": {\"step\": 8}}\n"
      "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 2001, \"event_type\": \"POINT_IN_TIME\", \"key\": \"tracked_stats\", "
      "\"value\": {\"throughput\": 5.25}, \"metadata\": {\"step\": 8}}\n"
      "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 91000, \"event_type\": \"INTERVAL_END\", \"key\": \"run_stop\", "
      "\"value\": null, \"metadata\": {\"status\": \"success\"}}\n");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  // The timing line and the throughput line of step 8 are one record.
  ASSERT_EQ(r.steps.size(), 1U);
  EXPECT_EQ(r.steps[0].step, 8);
  EXPECT_DOUBLE_EQ(*r.steps[0].stepTimeSeconds, 1.5);
  EXPECT_TRUE(std::isnan(*r.steps[0].loss));
  EXPECT_DOUBLE_EQ(r.steps[0].samplesPerSecond->value, 5.25);
  EXPECT_DOUBLE_EQ(*r.run.summary->timeToTrainSeconds, 90.0);
}

TEST(Mlperf, ClaimsMllogRecordsOnly) {
  EXPECT_TRUE(detail::mlperfClaimsLine(
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1696565619332, \"event_type\": \"POINT_IN_TIME\", \"key\": "
      "\"cache_clear\", \"value\": true, \"metadata\": {\"file\": \"<string>\", \"lineno\": 3}}"));
  EXPECT_FALSE(detail::mlperfClaimsLine(":::MLLOG Weight initialization: dict_keys(['state_dict'])"));
  EXPECT_FALSE(detail::mlperfClaimsLine("[NeMo I 2023-10-06 04:08:52 custom_callbacks:210] Starting training warmup"));
}

TEST(Mlperf, DetectedAndImportedThroughTheImporter) {
  const auto detected = detectFormat(fixture("mlperf/llama2_70b_lora_srun.txt"));
  ASSERT_TRUE(detected.ok()) << detected.error().message;
  EXPECT_EQ(*detected, Format::Mlperf);
  const auto imported = importLog(fixture("mlperf/llama2_70b_lora_srun.txt"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.format, "mlperf");
  EXPECT_EQ(imported->run.records, 8);
  ASSERT_TRUE(imported->run.summary);
  EXPECT_DOUBLE_EQ(*imported->run.summary->timeToTrainSeconds, 300.98);
}

}  // namespace
}  // namespace tb::logs
