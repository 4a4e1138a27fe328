// MLPerf Training's `:::MLLOG {json}` lines read into runs. The fixtures under
// tests/data/logs/mlperf/ follow docs/LOG_FORMATS.md, "MLPerf Training":
// records encoded as mllog.py's
// _encode_log does (namespace, time_ms, event_type, key, value, metadata);
// gpt3_result.txt built around the two lines quoted from training_results_v3.1
// NVIDIA/results/eos-dfw_n1344_ngc23.09_nemo/gpt3/result_1.txt (cache_clear,
// the tracked_stats throughput line, both verbatim) with NVIDIA's GPT-3
// callback's keys (consumed tokens as the step, `train_step_timing in s`);
// llama2_70b_lora_srun.txt around the `0: `-prefixed line quoted from NVIDIA's
// llama2_70b_lora README (verbatim), with its callback's throughput lines and
// run_stop status. tracked_stats throughput is imported as
// benchmark_throughput, never as samples/s or tokens/s (its unit is the
// benchmark's own); train_step_time, with no documented
// unit, is not imported.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

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
  return test::feedFixture(detail::makeMlperfFormat, relative);
}

test::FedLines mlperfText(std::string_view text) {
  auto format = detail::makeMlperfFormat("result_0.txt");
  return feedText(*format, text);
}

const std::string kThroughputNote =
    "tracked_stats throughput is kept as benchmark_throughput, in the benchmark's own unit: MLPerf "
    "throughput "
    "units are benchmark-specific, so no samples/s or tokens/s is derived from it";

TEST(Mlperf, Gpt3TimeToTrainTimingRecordsAndTheBenchmarkThroughput) {
  auto format = detail::makeMlperfFormat("gpt3_result.txt");
  const auto r = feedText(*format, readFixture("mlperf/gpt3_result.txt"));
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  // Four timing records and the throughput line's record at its own step
  // (tokens consumed); NeMo's own lines and the `:::MLLOG Weight
  // initialization: …` print are not records.
  ASSERT_EQ(r.steps.size(), 5U);
  const auto& first = r.steps[0];
  EXPECT_EQ(first.step, 2688 * 2048);             // consumed tokens after one step
  EXPECT_DOUBLE_EQ(*first.stepTimeSeconds, 1.6);  // `train_step_timing in s`: seconds by name
  EXPECT_DOUBLE_EQ(*first.loss, 7.5);
  for (const auto& step : r.steps) {
    EXPECT_FALSE(step.samplesPerSecond) << step.step;
    EXPECT_FALSE(step.tokensPerSecond) << step.step;
  }
  EXPECT_EQ(r.steps[3].step, 22020096);
  EXPECT_FALSE(r.steps[3].benchmarkThroughput);
  const auto& throughput = r.steps[4];
  EXPECT_EQ(throughput.step, 1211105280);
  EXPECT_DOUBLE_EQ(*throughput.benchmarkThroughput, 5154997.267404211);  // verbatim, unconverted
  EXPECT_FALSE(throughput.stepTimeSeconds);
  EXPECT_FALSE(throughput.loss);
  EXPECT_EQ(format->notes(), std::vector<std::string>{kThroughputNote});

  ASSERT_TRUE(r.run.summary);
  EXPECT_DOUBLE_EQ(*r.run.summary->timeToTrainSeconds,
                   (1696567990001.0 - 1696565390001.0) / 1000.0);
  EXPECT_DOUBLE_EQ(*r.run.summary->runtimeSeconds, 2600.0);
  EXPECT_EQ(r.run.globalBatch, 2688);
  EXPECT_EQ(r.run.sequenceLength, 2048);
  EXPECT_FALSE(r.run.partial);
}

TEST(Mlperf, SrunPrefixedLlamaLoraTimeToTrainAndBenchmarkThroughput) {
  const auto r = readMlperf("mlperf/llama2_70b_lora_srun.txt");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  // Its tracked_stats lines carry throughput only: one record each, at the
  // samples consumed, with nothing but the benchmark's figure.
  ASSERT_EQ(r.steps.size(), 8U);
  EXPECT_EQ(r.steps.front().step, 384);
  EXPECT_DOUBLE_EQ(*r.steps.front().benchmarkThroughput, 1.9001);
  EXPECT_EQ(r.steps.back().step, 3072);
  EXPECT_DOUBLE_EQ(*r.steps.back().benchmarkThroughput, 1.9257918929116467);
  for (const auto& step : r.steps) {
    EXPECT_FALSE(step.samplesPerSecond) << step.step;
    EXPECT_FALSE(step.stepTimeSeconds) << step.step;
  }
  ASSERT_TRUE(r.run.summary);
  EXPECT_DOUBLE_EQ(*r.run.summary->timeToTrainSeconds, 300.98);
  EXPECT_EQ(r.run.globalBatch, 8);
  EXPECT_FALSE(r.run.sequenceLength);
  EXPECT_FALSE(r.run.partial);
}

TEST(Mlperf, AbortedRunHasADurationButNoTimeToTrain) {
  const auto r = readMlperf("mlperf/aborted_run.txt");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 1U);  // throughput only
  EXPECT_DOUBLE_EQ(*r.steps[0].benchmarkThroughput, 2.5);
  ASSERT_TRUE(r.run.summary);
  EXPECT_DOUBLE_EQ(*r.run.summary->runtimeSeconds, 600.0);
  EXPECT_FALSE(r.run.summary->timeToTrainSeconds);
  EXPECT_FALSE(r.run.partial);
}

TEST(Mlperf, RunWithoutRunStopIsPartial) {
  auto format = detail::makeMlperfFormat("no_run_stop.txt");
  const auto r = feedText(*format, readFixture("mlperf/no_run_stop.txt"));
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  // The throughput is kept in the benchmark's unit; train_step_time, whose
  // unit is not documented, is not.
  ASSERT_EQ(r.steps.size(), 1U);
  EXPECT_EQ(r.steps[0].step, 16);
  EXPECT_DOUBLE_EQ(*r.steps[0].benchmarkThroughput, 3.25);
  EXPECT_FALSE(r.steps[0].stepTimeSeconds);
  EXPECT_EQ(format->notes(),
            (std::vector<std::string>{
                kThroughputNote,
                "tracked_stats train_step_time is not imported: its unit is not documented"}));
  EXPECT_FALSE(r.run.summary);
  EXPECT_TRUE(r.run.partial);
  EXPECT_NE(r.run.partialReason.find("run_stop"), std::string::npos) << r.run.partialReason;
  EXPECT_EQ(r.run.globalBatch, 16);
}

TEST(Mlperf, CorruptRecordNamesTheLine) {
  const auto r = mlperfText(
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"INTERVAL_START\", "
      "\"key\": \"run_start\", "
      "\"value\": null, \"metadata\": {}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 2000, \"key\": \n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 3000, \"event_type\": \"INTERVAL_END\", "
      "\"key\": \"run_stop\", "
      "\"value\": null, \"metadata\": {\"status\": \"success\"}}\n");
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.error().kind, ErrorKind::Parse);
  EXPECT_NE(
      r.status.error().message.find("result_0.txt:2: expected a JSON record after ':::MLLOG '"),
      std::string::npos)
      << r.status.error().message;
}

TEST(Mlperf, RecordWithoutKeyIsAnError) {
  const auto r = mlperfText(":::MLLOG {\"namespace\": \"\", \"time_ms\": 1000}\n");
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.error().message.find("result_0.txt:1: expected a string \"key\""),
            std::string::npos)
      << r.status.error().message;
}

TEST(Mlperf, CutOffLastLineMarksPartialWithoutAnError) {
  const auto r = mlperfText(
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"INTERVAL_START\", "
      "\"key\": \"run_start\", "
      "\"value\": null, \"metadata\": {}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 2000, \"event_type\": \"POINT_IN_TIME\", "
      "\"key\": \"tracked_stats\", "
      "\"value\": {\"reduced_train_loss\": 2.0}, \"metadata\": {\"step\": 8}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 3000, \"event_type\": \"POINT_IN_TIME\", "
      "\"key\": \"tracked_stats\", "
      "\"value\": {\"reduced_train_loss\": 2.");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 1U);
  EXPECT_DOUBLE_EQ(*r.steps[0].loss, 2.0);
  EXPECT_TRUE(r.run.partial);
  EXPECT_NE(r.run.partialReason.find("cut off"), std::string::npos) << r.run.partialReason;
}

TEST(Mlperf, MixedStreamWithNanLossAndOtherLoggers) {
  const auto r = mlperfText(
      "[NeMo I 2024-07-15 06:50:05 nemo_logging:349] Loading model\n"
      "Training epoch 0, iteration 0/9 | reduced_train_loss: 10.5 | global_step: 0\n"
      "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"INTERVAL_START\", "
      "\"key\": \"run_start\", "
      "\"value\": null, \"metadata\": {}}\n"
      " [2024-07-15 06:50:06] iteration        1/      10 | consumed samples:            8 |\n"
      "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 2000, \"event_type\": \"POINT_IN_TIME\", "
      "\"key\": \"tracked_stats\", "
      "\"value\": {\"train_step_time\": 1.5, \"reduced_train_loss\": NaN}, \"metadata\": "
      "{\"step\": 8}}\n"
      "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 2001, \"event_type\": \"POINT_IN_TIME\", "
      "\"key\": \"tracked_stats\", "
      "\"value\": {\"throughput\": 5.25}, \"metadata\": {\"step\": 8}}\n"
      "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 91000, \"event_type\": \"INTERVAL_END\", "
      "\"key\": \"run_stop\", "
      "\"value\": null, \"metadata\": {\"status\": \"success\"}}\n");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  // Step 8's loss is its record; train_step_time (no documented unit) and
  // the throughput line are not imported.
  ASSERT_EQ(r.steps.size(), 1U);
  EXPECT_EQ(r.steps[0].step, 8);
  EXPECT_FALSE(r.steps[0].stepTimeSeconds);
  EXPECT_TRUE(std::isnan(*r.steps[0].loss));
  EXPECT_FALSE(r.steps[0].samplesPerSecond);
  EXPECT_FALSE(r.steps[0].tokensPerSecond);
  EXPECT_DOUBLE_EQ(*r.run.summary->timeToTrainSeconds, 90.0);
}

TEST(Mlperf, ClaimsMllogRecordsOnly) {
  EXPECT_TRUE(detail::mlperfClaimsLine(
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1696565619332, \"event_type\": "
      "\"POINT_IN_TIME\", \"key\": "
      "\"cache_clear\", \"value\": true, \"metadata\": {\"file\": \"<string>\", \"lineno\": 3}}"));
  EXPECT_FALSE(
      detail::mlperfClaimsLine(":::MLLOG Weight initialization: dict_keys(['state_dict'])"));
  EXPECT_FALSE(detail::mlperfClaimsLine(
      "[NeMo I 2023-10-06 04:08:52 custom_callbacks:210] Starting training warmup"));
}

TEST(Mlperf, DetectedAndImportedThroughTheImporter) {
  const auto detected = detectFormat(fixture("mlperf/llama2_70b_lora_srun.txt"));
  ASSERT_TRUE(detected.ok()) << detected.error().message;
  EXPECT_EQ(*detected, Format::Mlperf);
  const auto imported = importLog(fixture("mlperf/llama2_70b_lora_srun.txt"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.format, "mlperf");
  EXPECT_EQ(imported->run.records, 8);  // throughput lines only
  ASSERT_TRUE(imported->run.summary);
  EXPECT_DOUBLE_EQ(*imported->run.summary->timeToTrainSeconds, 300.98);
  // The median of the eight figures (the mean of the middle two, 1.925 and
  // 1.9251), in the benchmark's unit.
  ASSERT_TRUE(imported->medians.benchmarkThroughput);
  EXPECT_DOUBLE_EQ(*imported->medians.benchmarkThroughput, (1.925 + 1.9251) / 2.0);
  // No rate was guessed from the throughput: listed missing, and the hint says why.
  EXPECT_FALSE(imported->medians.samplesPerSecond);
  EXPECT_FALSE(imported->medians.tokensPerSecondPerGpu);
  EXPECT_FALSE(imported->medians.stepTimeSeconds);
  const auto& missing = imported->missing;
  for (const char* name : {"step_time_s", "samples_per_s", "tokens_per_s"})
    EXPECT_NE(std::find(missing.begin(), missing.end(), name), missing.end()) << name;
  const auto& found = imported->found;
  EXPECT_NE(std::find(found.begin(), found.end(), "benchmark_throughput"), found.end());
  EXPECT_EQ(std::find(missing.begin(), missing.end(), "benchmark_throughput"), missing.end());
  EXPECT_NE(std::find(imported->hints.begin(), imported->hints.end(), kThroughputNote),
            imported->hints.end());
}

TEST(Mlperf, Gpt3BenchmarkThroughputMedianIsTheLoggedFigure) {
  const auto imported = importLog(fixture("mlperf/gpt3_result.txt"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.records, 5);
  ASSERT_TRUE(imported->medians.benchmarkThroughput);
  EXPECT_DOUBLE_EQ(*imported->medians.benchmarkThroughput, 5154997.267404211);
  // The timing records give the step time by name; the throughput stays apart.
  ASSERT_TRUE(imported->medians.stepTimeSeconds);
  EXPECT_DOUBLE_EQ(*imported->medians.stepTimeSeconds, (1.601 + 1.602) / 2.0);
}

TEST(Mlperf, OtherFormatsHaveNoBenchmarkThroughputAndDoNotListItMissing) {
  const auto imported = importLog(fixture("megatron/core_r0.8_log_throughput.log"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_FALSE(imported->medians.benchmarkThroughput);
  for (const auto* list : {&imported->found, &imported->missing})
    EXPECT_EQ(std::find(list->begin(), list->end(), "benchmark_throughput"), list->end());
}

TEST(Mlperf, ARunWithNothingImportableIsRefusedSayingWhy) {
  // train_step_time alone: its unit is not documented, so there is no record.
  const auto dir = std::filesystem::temp_directory_path() / "tb_mlperf_nothing";
  std::filesystem::create_directories(dir);
  const auto path = dir / "result_0.txt";
  std::ofstream(path)
      << ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"INTERVAL_START\", "
         "\"key\": \"run_start\", \"value\": null, \"metadata\": {}}\n"
      << ":::MLLOG {\"namespace\": \"\", \"time_ms\": 2000, \"event_type\": \"POINT_IN_TIME\", "
         "\"key\": \"tracked_stats\", \"value\": {\"train_step_time\": 4.9}, \"metadata\": "
         "{\"step\": 16}}\n";
  const auto imported = importLog(path);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.error().kind, ErrorKind::Parse);
  EXPECT_EQ(imported.error().message, path.string() +
                                          ": expected mlperf training records, found none "
                                          "(tracked_stats train_step_time is not imported: "
                                          "its unit is not documented)");
}

TEST(Mlperf, ANumberOutOfRangeIsAParseErrorNamingTheLine) {
  // 1e999 overflows a double: nlohmann's DOM parser throws out_of_range,
  // which must not leave importLog.
  const auto dir = std::filesystem::temp_directory_path() / "tb_mlperf_overflow";
  std::filesystem::create_directories(dir);
  const auto path = dir / "result_0.txt";
  std::ofstream(path) << ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": "
                         "\"INTERVAL_START\", \"key\": "
                         "\"run_start\", \"value\": null, \"metadata\": {}}\n"
                      << ":::MLLOG {\"namespace\": \"\", \"time_ms\": 2000, \"event_type\": "
                         "\"POINT_IN_TIME\", \"key\": "
                         "\"tracked_stats\", \"value\": {\"reduced_train_loss\": 1e999}, "
                         "\"metadata\": {\"step\": 8}}\n";
  const auto imported = importLog(path);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.error().kind, ErrorKind::Parse);
  EXPECT_NE(
      imported.error().message.find(path.string() + ":2: expected a JSON record after ':::MLLOG '"),
      std::string::npos)
      << imported.error().message;
  EXPECT_NE(imported.error().message.find("number overflow parsing '1e999'"), std::string::npos)
      << imported.error().message;
}

TEST(Mlperf, DeepNestingIsAParseErrorNotACrash) {
  const std::string line =
      ":::MLLOG {\"key\": \"tracked_stats\", \"value\": " + std::string(500000, '[') +
      std::string(500000, ']') + "}\n";
  const auto r = mlperfText(line);
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(
      r.status.error().message.find("result_0.txt:1: expected a JSON record after ':::MLLOG '"),
      std::string::npos)
      << r.status.error().message;
  EXPECT_NE(r.status.error().message.find("JSON nested deeper than 256 levels"), std::string::npos)
      << r.status.error().message;
}

TEST(Mlperf, ANegativeOrHugeStepIsAnError) {
  for (const char* step : {"-8", "9223372036854775808"}) {
    const auto r = mlperfText(
        std::string(":::MLLOG {\"key\": \"tracked_stats\", \"value\": {\"reduced_train_loss\": "
                    "2.0}, \"metadata\": {\"step\": ") +
        step + "}}\n");
    ASSERT_FALSE(r.status.ok()) << step;
    EXPECT_NE(
        r.status.error().message.find(
            std::string(
                "result_0.txt:1: expected a whole, non-negative step number for metadata \"step\", "
                "found '") +
            step + "'"),
        std::string::npos)
        << r.status.error().message;
  }
}

}  // namespace
}  // namespace tb::logs
