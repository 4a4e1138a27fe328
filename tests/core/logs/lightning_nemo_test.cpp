// Lightning's metrics.csv and NeMo 2's console and DLLogger lines read into
// runs. The fixtures under tests/data/logs/lightning-csv/ and nemo/ follow
// docs/LOG_FORMATS.md, "NeMo / Lightning": metrics.csv as _ExperimentWriter
// writes it through csv.DictWriter (CRLF, sparse rows, the header sorted
// since Lightning 2.2 and in insertion order before), NeMo's metric names
// (reduced_train_loss, lr, global_step, consumed_samples, train_step_timing
// in s, tokens_per_sec_per_gpu, tflops_per_sec_per_gpu, peak_memory_usage);
// the ProgressPrinter line built from a published example (`Training epoch 0,
// iteration 1/249 | lr: 3.922e-06 | …`) in both the `{n-1}/{total-1}` and the
// later `{n}/{total}` form, its values formatted with `{:.4}` as
// format_string does; DLLogger's JSONStreamBackend lines with the values of a
// published step-16 excerpt.
#include <cmath>
#include <filesystem>
#include <fstream>
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

test::FedLines readCsv(std::string_view relative) {
  return test::feedFixture(detail::makeLightningCsvFormat, relative);
}

test::FedLines readNemo(std::string_view relative) {
  return test::feedFixture(detail::makeNemoFormat, relative);
}

test::FedLines nemoText(std::string_view text) {
  auto format = detail::makeNemoFormat("console.log");
  return feedText(*format, text);
}

// --- metrics.csv ------------------------------------------------------------

TEST(LightningCsv, SortedHeaderNemoRowsAndValidationRowIgnored) {
  const auto r = readCsv("lightning-csv/nemo_sorted_header.csv");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 6U);  // the val_loss row is not a record
  const auto& first = r.steps[0];
  EXPECT_EQ(first.step, 0);
  EXPECT_DOUBLE_EQ(*first.loss, 1.653);
  EXPECT_DOUBLE_EQ(*first.learningRate, 3.922e-06);
  EXPECT_DOUBLE_EQ(*first.stepTimeSeconds, 9.875);
  EXPECT_EQ(first.globalBatch, 8);
  ASSERT_TRUE(first.samplesPerSecond);
  EXPECT_DOUBLE_EQ(first.samplesPerSecond->value, 8.0 / 9.875);
  EXPECT_EQ(first.samplesPerSecond->scope, RateScope::Job);
  EXPECT_EQ(r.steps[3].step, 3);
  EXPECT_DOUBLE_EQ(*r.steps[3].loss, 1.503);
  EXPECT_EQ(r.steps[5].step, 5);
  EXPECT_DOUBLE_EQ(*r.steps[5].stepTimeSeconds, 2.505);
  EXPECT_EQ(r.run.globalBatch, 8);
  EXPECT_FALSE(r.run.partial);
}

TEST(LightningCsv, InsertionOrderRowsOfOneStepMerge) {
  const auto r = readCsv("lightning-csv/lightning_insertion_order.csv");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  // LearningRateMonitor's row and the module's row of each step are one
  // record; the epoch-end rows (val_loss, train_loss_epoch) none.
  ASSERT_EQ(r.steps.size(), 3U);
  EXPECT_EQ(r.steps[0].step, 49);
  EXPECT_DOUBLE_EQ(*r.steps[0].learningRate, 0.000755);
  EXPECT_DOUBLE_EQ(*r.steps[0].loss, 2.01);
  EXPECT_EQ(r.steps[2].step, 149);
  EXPECT_DOUBLE_EQ(*r.steps[2].learningRate, 0.000255);
  EXPECT_DOUBLE_EQ(*r.steps[2].loss, 1.01);
  EXPECT_FALSE(r.steps[2].stepTimeSeconds);
}

TEST(LightningCsv, ThroughputFlopsMemoryAndQuotedHeaderCell) {
  const auto r = readCsv("lightning-csv/nemo_throughput_columns.csv");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 4U);
  const auto& first = r.steps[0];
  EXPECT_EQ(first.step, 10);
  ASSERT_TRUE(first.tokensPerSecond);
  EXPECT_DOUBLE_EQ(first.tokensPerSecond->value, 3210.5);
  EXPECT_EQ(first.tokensPerSecond->scope, RateScope::PerGpu);
  EXPECT_DOUBLE_EQ(*first.tflopsPerGpu, 410.25);
  EXPECT_DOUBLE_EQ(*first.memoryBytes, 68719476736.0);  // the peak, not memory_allocated
  EXPECT_DOUBLE_EQ(*first.gradNorm, 0.75);
  EXPECT_DOUBLE_EQ(first.samplesPerSecond->value, 512.0 / 4.1);
  EXPECT_TRUE(std::isnan(*r.steps[2].loss));
  EXPECT_TRUE(std::isinf(*r.steps[3].gradNorm));
  EXPECT_EQ(r.run.memoryKind, "max_reserved");
  EXPECT_EQ(r.run.globalBatch, 512);
}

TEST(LightningCsv, CutOffLastRowIsLeftOutAndMarksPartial) {
  const auto r = readCsv("lightning-csv/truncated.csv");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 5U);  // step 5's row ends in "2." instead of "2.505"
  EXPECT_EQ(r.steps.back().step, 4);
  EXPECT_TRUE(r.run.partial);
  EXPECT_NE(r.run.partialReason.find("cut off"), std::string::npos);
}

TEST(LightningCsv, RowWithTooManyCellsIsAnError) {
  const auto r = readCsv("lightning-csv/corrupt.csv");
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.error().kind, ErrorKind::Parse);
  const std::string& message = r.status.error().message;
  EXPECT_NE(message.find("corrupt.csv:4:"), std::string::npos) << message;
  EXPECT_NE(message.find("expected 9 cells"), std::string::npos) << message;
}

TEST(LightningCsv, NonNumberInAKnownColumnIsAnError) {
  auto format = detail::makeLightningCsvFormat("metrics.csv");
  const auto r = feedText(
      *format, "epoch,reduced_train_loss,step\r\n0,1.5,1\r\n0,tensor(1.4),2\r\n0,1.3,3\r\n");
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.error().message.find(
                "metrics.csv:3: expected a number in column \"reduced_train_loss\", "
                "found 'tensor(1.4)'"),
            std::string::npos)
      << r.status.error().message;
}

TEST(LightningCsv, QuotedCellWithALineBreakSpansLines) {
  auto format = detail::makeLightningCsvFormat("metrics.csv");
  const auto r = feedText(
      *format, "epoch,\"odd\nname\",reduced_train_loss,step\r\n0,7,1.5,1\r\n0,7,1.25,2\r\n");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 2U);
  EXPECT_DOUBLE_EQ(*r.steps[1].loss, 1.25);
}

TEST(LightningCsv, QuotedCellsSpanningLinesWithDoubledQuotes) {
  auto format = detail::makeLightningCsvFormat("metrics.csv");
  const auto r = feedText(*format,
                          "epoch,\"a \"\"odd\"\"\nname,\nstill\",reduced_train_loss,step\r\n"
                          "0,\"x\"\"\ny\",1.5,1\r\n0,z,1.25,2\r\n");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 2U);
  EXPECT_EQ(r.steps[0].step, 1);
  EXPECT_DOUBLE_EQ(*r.steps[0].loss, 1.5);
  EXPECT_DOUBLE_EQ(*r.steps[1].loss, 1.25);
}

TEST(LightningCsv, AnUnclosedQuoteIsReadInLinearTime) {
  // Every line after an unclosed quote used to re-split the whole record so
  // far: 30,000 lines of 50 bytes took minutes (some 10^10 byte copies), past
  // ctest's limit for this test; each line is now scanned once, and the
  // record is refused at its 1 MiB bound. (No clock here: speed is for
  // benchmarks; the limit only catches the quadratic path.)
  std::string text = "epoch,reduced_train_loss,step\n0,\"1.5,1\n";
  for (int i = 0; i < 30000; ++i) text += std::string(49, 'x') + "\n";
  auto format = detail::makeLightningCsvFormat("metrics.csv");
  const auto r = feedText(*format, text);
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(
      r.status.error().message.find("metrics.csv:2: expected a closing quote, found none in "),
      std::string::npos)
      << r.status.error().message;
}

TEST(LightningCsv, RowBeforeAnyHeaderIsAnError) {
  auto format = detail::makeLightningCsvFormat("metrics.csv");
  const auto r = feedText(*format, "0,1.5,1\n");
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.error().message.find("metrics.csv:1: expected the metrics.csv header"),
            std::string::npos);
}

TEST(LightningCsv, ClaimsTheHeaderLineOnly) {
  EXPECT_TRUE(
      detail::lightningCsvClaimsLine("consumed_samples,epoch,global_batch_size,global_step,lr,"
                                     "reduced_train_loss,step,train_step_timing in s,val_loss"));
  EXPECT_TRUE(detail::lightningCsvClaimsLine(
      "lr-AdamW,step,train_loss_step,epoch,val_loss,train_loss_epoch"));
  EXPECT_FALSE(detail::lightningCsvClaimsLine("8.0,0,8.0,0.0,3.922e-06,1.653,0,9.875,"));
  EXPECT_FALSE(detail::lightningCsvClaimsLine("name,value"));  // no step
  EXPECT_FALSE(detail::lightningCsvClaimsLine(
      " [2024-07-10 12:00:00] iteration       10/     100 | consumed samples:          320 |"));
}

// --- NeMo 2 console ---------------------------------------------------------

TEST(NemoConsole, EarlierFormWithOtherLoggersLines) {
  const auto r = readNemo("nemo/nemo2_console.log");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  // [NeMo I …], Lightning's, `Validation: iteration …` lines are skipped.
  ASSERT_EQ(r.steps.size(), 5U);
  const auto& first = r.steps[0];
  EXPECT_EQ(first.step, 50);  // global_step 49 + 1: steps done
  EXPECT_DOUBLE_EQ(*first.loss, 1.604);
  EXPECT_DOUBLE_EQ(*first.learningRate, 0.0001);
  EXPECT_DOUBLE_EQ(*first.stepTimeSeconds, 2.75);
  EXPECT_EQ(first.globalBatch, 8);
  EXPECT_DOUBLE_EQ(first.samplesPerSecond->value, 8.0 / 2.75);
  EXPECT_EQ(r.steps[4].step, 250);
  EXPECT_DOUBLE_EQ(*r.steps[4].stepTimeSeconds, 2.505);
  // `iteration 249/249` with global_step 249: iteration {n-1}/{total-1}.
  EXPECT_EQ(r.run.plannedSteps, 250);
  EXPECT_FALSE(r.run.partial);
  EXPECT_EQ(r.run.globalBatch, 8);
}

TEST(NemoConsole, LaterFormStoppedEarlyIsPartial) {
  const auto r = readNemo("nemo/nemo2_console_later_form.log");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 4U);
  EXPECT_EQ(r.steps[0].step, 10);  // `iteration 10/100`, global_step 9
  EXPECT_EQ(r.steps[3].step, 40);
  EXPECT_DOUBLE_EQ(*r.steps[0].memoryBytes, 6.4e10);
  EXPECT_EQ(r.run.memoryKind, "max_reserved");
  // `iteration 40/100` with global_step 39: iteration {n}/{total}.
  EXPECT_EQ(r.run.plannedSteps, 100);
  EXPECT_TRUE(r.run.partial);
  EXPECT_NE(r.run.partialReason.find("iteration 40 of 100"), std::string::npos)
      << r.run.partialReason;
  EXPECT_EQ(r.run.globalBatch, 256);
}

TEST(NemoConsole, MixedStreamKeepsOnlyTrainingLines) {
  const auto r = nemoText(
      "[rank0]: [NeMo I 2024-07-10 12:00:01 nemo_logging:381] setting up\n"
      "0: Training epoch 0, iteration 0/9 | lr: 1e-05 | global_step: 0 | reduced_train_loss: 10.5\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1, \"event_type\": \"POINT_IN_TIME\", \"key\": "
      "\"cache_clear\", "
      "\"value\": true, \"metadata\": {}}\n"
      " [2024-07-10 12:00:02] iteration        1/      10 | consumed samples:            8 |\n"
      "Epoch 0:  10%|#         | 1/10 [00:02<00:18, 2.00s/it]\n"
      "\x1b[32m[default0]:Training epoch 0, iteration 1/9 | lr: 2e-05 | global_step: 1 | "
      "reduced_train_loss: 10.25\x1b[0m\n"
      "Validation: iteration 1/10\n");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 2U);
  EXPECT_EQ(r.steps[0].step, 1);
  EXPECT_EQ(r.steps[1].step, 2);
  EXPECT_DOUBLE_EQ(*r.steps[1].loss, 10.25);
  EXPECT_DOUBLE_EQ(*r.steps[1].learningRate, 2e-05);
}

// With log_interval 1 the last line of a finished run is its last step: the
// record's step (global_step + 1) and the planned count (total + 1 in the
// earlier form) agree, so the importer does not call it partial.
TEST(NemoConsole, AFinishedRunLoggedEveryStepIsComplete) {
  const auto dir = std::filesystem::temp_directory_path() / "tb_nemo_interval_one";
  std::filesystem::create_directories(dir);
  for (const bool laterForm : {false, true}) {
    std::string text = "[NeMo I 2024-07-10 12:00:01 nemo_logging:381] setting up\n";
    for (int n = 1; n <= 5; ++n) {
      const int iteration = laterForm ? n : n - 1;
      text += "Training epoch 0, iteration " + std::to_string(iteration) + "/" +
              std::to_string(laterForm ? 5 : 4) +
              " | lr: 1e-05 | global_step: " + std::to_string(n - 1) +
              " | reduced_train_loss: 2.5 | "
              "train_step_timing in s: 0.5\n";
    }
    const auto path = dir / (laterForm ? "later.log" : "earlier.log");
    std::ofstream(path) << text;
    const auto imported = importLog(path);
    ASSERT_TRUE(imported.ok()) << imported.error().message;
    EXPECT_EQ(imported->run.format, "nemo");
    EXPECT_EQ(imported->run.firstStep, 1) << laterForm;
    EXPECT_EQ(imported->run.lastStep, 5) << laterForm;
    EXPECT_EQ(imported->run.plannedSteps, 5) << laterForm;
    EXPECT_FALSE(imported->run.partial) << laterForm << ": " << imported->run.partialReason;
  }
  std::filesystem::remove_all(dir);
}

TEST(NemoConsole, NonNumberInAKnownFieldIsAnError) {
  const auto r = nemoText(
      "Training epoch 0, iteration 0/9 | reduced_train_loss: tensor(1.5) | global_step: 0\n"
      "Training epoch 0, iteration 1/9 | reduced_train_loss: 1.4 | global_step: 1\n");
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.error().kind, ErrorKind::Parse);
  EXPECT_NE(r.status.error().message.find(
                "console.log:1: expected a number for \"reduced_train_loss\", found "
                "'tensor(1.5)'"),
            std::string::npos)
      << r.status.error().message;
}

TEST(NemoConsole, CutOffLastLineIsLeftOut) {
  const auto r = nemoText(
      "Training epoch 0, iteration 0/9 | reduced_train_loss: 1.5 | global_step: 0\n"
      "Training epoch 0, iteration 1/9 | reduced_train_loss: 1.4 | global_st");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 1U);
  EXPECT_TRUE(r.run.partial);
}

// --- DLLogger ---------------------------------------------------------------

TEST(NemoDllogger, LogLinesParameterLinesAndMergedSteps) {
  const auto r = readNemo("nemo/dllogger.json");
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  // PARAMETER, the val_loss line and the step [] line are not records; the
  // LearningRateMonitor line of each step merges with its metrics line.
  ASSERT_EQ(r.steps.size(), 3U);
  EXPECT_EQ(r.steps[0].step, 14);
  EXPECT_DOUBLE_EQ(*r.steps[0].learningRate, 2.0e-05);
  EXPECT_TRUE(std::isnan(*r.steps[1].loss));  // json.dumps wrote NaN
  const auto& last = r.steps[2];
  EXPECT_EQ(last.step, 16);
  EXPECT_DOUBLE_EQ(*last.stepTimeSeconds, 92.29);
  EXPECT_DOUBLE_EQ(*last.loss, 2.75 - 0.01 * 16);
  EXPECT_DOUBLE_EQ(*last.learningRate, 2.0e-05);
  // consumed_samples grows by 2016 a step (34272 at step 16).
  EXPECT_EQ(r.run.globalBatch, 2016);
  EXPECT_FALSE(r.run.partial);
}

TEST(NemoDllogger, CutOffLastLineMarksPartial) {
  const std::string text = readFixture("nemo/dllogger.json");
  // Up to the middle of step 15's metrics line.
  const auto cut = text.find("\"consumed_samples\"", text.find("\"step\": 15"));
  ASSERT_NE(cut, std::string::npos);
  const auto r = nemoText(text.substr(0, cut));
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 1U);
  EXPECT_EQ(r.steps[0].step, 14);
  EXPECT_TRUE(r.run.partial);
}

TEST(NemoDllogger, ANumberOutOfRangeIsAnErrorNotAnException) {
  const auto r = nemoText(
      "DLLL {\"type\": \"LOG\", \"step\": 3, \"data\": {\"reduced_train_loss\": 1e999}}\n"
      "DLLL {\"type\": \"LOG\", \"step\": 4, \"data\": {\"reduced_train_loss\": 0.9}}\n");
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.error().kind, ErrorKind::Parse);
  EXPECT_NE(r.status.error().message.find("console.log:1: expected a JSON object after 'DLLL '"),
            std::string::npos)
      << r.status.error().message;
  EXPECT_NE(r.status.error().message.find("number overflow parsing '1e999'"), std::string::npos)
      << r.status.error().message;
}

TEST(NemoDllogger, ANegativeOrHugeStepIsAnError) {
  for (const char* step : {"-3", "9223372036854775808", "2.5"}) {
    const auto r = nemoText(std::string("DLLL {\"type\": \"LOG\", \"step\": ") + step +
                            ", \"data\": {\"reduced_train_loss\": 1.0}}\n");
    ASSERT_FALSE(r.status.ok()) << step;
    EXPECT_NE(r.status.error().message.find(
                  std::string("console.log:1: expected a whole, non-negative step number "
                              "for \"step\", found '") +
                  step + "'"),
              std::string::npos)
        << r.status.error().message;
  }
  // "PARAMETER" and [] are no step: those lines are skipped, not refused.
  const auto skipped = nemoText(
      "DLLL {\"type\": \"LOG\", \"step\": \"PARAMETER\", \"data\": {\"lr\": 1.0}}\n"
      "DLLL {\"type\": \"LOG\", \"step\": [], \"data\": {\"reduced_train_loss\": 1.0}}\n");
  ASSERT_TRUE(skipped.status.ok()) << skipped.status.error().message;
  EXPECT_TRUE(skipped.steps.empty());
}

TEST(NemoDllogger, CorruptLineIsAnError) {
  const auto r = nemoText(
      "DLLL {\"type\": \"LOG\", \"step\": 3, \"data\": {\"reduced_train_loss\": 1.0,,}}\n"
      "DLLL {\"type\": \"LOG\", \"step\": 4, \"data\": {\"reduced_train_loss\": 0.9}}\n");
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.error().kind, ErrorKind::Parse);
  EXPECT_NE(r.status.error().message.find("console.log:1: expected a JSON object after 'DLLL '"),
            std::string::npos)
      << r.status.error().message;
}

TEST(Nemo, ClaimsConsoleAndDllLines) {
  EXPECT_TRUE(detail::nemoClaimsLine(
      "Training epoch 0, iteration 1/249 | lr: 3.922e-06 | global_batch_size: 8 | global_step: 1 | "
      "reduced_train_loss: 1.653 | train_step_timing in s: 2.505 | consumed_samples: 16"));
  EXPECT_TRUE(detail::nemoClaimsLine(
      "DLLL {\"timestamp\": \"1.0\", \"type\": \"LOG\", \"step\": 16, \"data\": {}}"));
  EXPECT_FALSE(detail::nemoClaimsLine("Training epoch 0, iteration 1/249"));
  EXPECT_FALSE(detail::nemoClaimsLine("Validation: iteration 1/10"));
  EXPECT_FALSE(
      detail::nemoClaimsLine(" iteration       10/     100 | consumed samples:          320 |"));
}

TEST(Nemo, DetectedAndImportedThroughTheImporter) {
  const auto console = detectFormat(fixture("nemo/nemo2_console.log"));
  ASSERT_TRUE(console.ok()) << console.error().message;
  EXPECT_EQ(*console, Format::Nemo);
  const auto csv = detectFormat(fixture("lightning-csv/nemo_sorted_header.csv"));
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  EXPECT_EQ(*csv, Format::LightningCsv);

  const auto imported = importLog(fixture("nemo/dllogger.json"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.format, "nemo");
  EXPECT_EQ(imported->run.records, 3);
  EXPECT_EQ(imported->run.lastStep, 16);
}

}  // namespace
}  // namespace tb::logs
