// Files other teams published from their own runs, imported as they are
// (tests/data/logs/*/…_published.*; docs/LOG_FORMATS.md, "Published files
// imported", names each repository and commit). The expected values are
// worked out from the files by hand.
#include <gtest/gtest.h>

#include <string>

#include "tb/logs/log_import.hpp"

namespace tb::logs {
namespace {

std::string fixture(const char* name) { return std::string(TB_LOG_FIXTURES) + "/" + name; }

// P4P4N1CK/whisper-large-v2-japanese-5k-steps: 5,000 steps with five
// evaluations inside train(), whose eval_runtime entries sum to 8,585.4949 s
// of the summary's 77,350.9963 s.
TEST(PublishedLogs, AWhisperFineTuneIsTimedOverItsTrainingOnly) {
  auto log = importLog(fixture("hf-trainer/trainer_state_whisper_ja_published.json"));
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_EQ(log->run.records, 200);
  EXPECT_EQ(log->run.firstStep, 25);
  EXPECT_EQ(log->run.lastStep, 5000);
  EXPECT_FALSE(log->run.partial) << log->run.partialReason;
  ASSERT_TRUE(log->excludedSeconds.has_value());
  EXPECT_NEAR(*log->excludedSeconds, 8585.4949, 1e-6);
  EXPECT_EQ(log->excludedKinds, std::vector<std::string>{"eval"});
  // 3.232 samples/s over 77,350.9963 s, taken over the 68,765.5014 s of
  // training; 1 / 0.065 s per step likewise (the file rounds both rates to
  // three digits, so the step time is 0.6 % under 68,765.5 s / 5,000).
  ASSERT_TRUE(log->medians.samplesPerSecond.has_value());
  EXPECT_NEAR(*log->medians.samplesPerSecond, 3.6355209, 1e-6);
  ASSERT_TRUE(log->medians.stepTimeSeconds.has_value());
  EXPECT_NEAR(*log->medians.stepTimeSeconds, 13.6770157, 1e-6);
}

// mlcommons/training_results_v3.1, ASUSTeK ESC-N8-E11 DLRM-DCNv2: its one
// tracked_stats line gives its step as a fraction of the epoch.
TEST(PublishedLogs, AnMlperfDlrmResultWithAFractionalStepImports) {
  auto log = importLog(fixture("mlperf/dlrm_dcnv2_v3.1_published.txt"));
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_EQ(log->run.records, 1);
  EXPECT_EQ(log->run.globalBatch, 55296);
  ASSERT_TRUE(log->medians.benchmarkThroughput.has_value());
  EXPECT_DOUBLE_EQ(*log->medians.benchmarkThroughput, 12098765.894549021);
  ASSERT_TRUE(log->run.summary && log->run.summary->timeToTrainSeconds);
  EXPECT_NEAR(*log->run.summary->timeToTrainSeconds, 242.696, 1e-9);  // run_start to run_stop
  EXPECT_FALSE(log->run.partial) << log->run.partialReason;
  bool said = false;
  for (const std::string& hint : log->hints)
    said = said || hint.find("fraction of an epoch") != std::string::npos;
  EXPECT_TRUE(said);
}

// Kamil-Jan/asl_project's Lightning CSVLogger file (CRLF): 217 step rows,
// and at each of the 10 epochs' ends a validation row and an epoch row.
TEST(PublishedLogs, ALightningCsvLoggerFileKeepsItsStepRowsOnly) {
  auto log = importLog(fixture("lightning-csv/asl_project_published.csv"));
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_EQ(log->run.records, 217);
  EXPECT_EQ(log->run.firstStep, 49);
  EXPECT_EQ(log->run.lastStep, 10849);
  ASSERT_FALSE(log->run.steps.empty());
  EXPECT_DOUBLE_EQ(*log->run.steps.back().loss, 0.0076677375473082066);
  bool said = false;
  for (const std::string& hint : log->hints)
    said = said || hint.find("20 validation lines") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace tb::logs
