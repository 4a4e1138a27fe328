// The training script's own loss lines beside a framework that prints no
// loss (DeepSpeed), and a user's --loss-pattern for any text format. The
// DeepSpeed lines are the engine's as docs/LOG_FORMATS.md has them; the
// script's lines are DeepSpeedExamples' loguru form (`… | INFO | __main__:
// log_dist:54 - [Rank 0] Loss: 10.8766`) and the logging module's default
// (`INFO:__main__:loss = 2.5`).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "line_feed_support.hpp"
#include "script_loss.hpp"
#include "tb/logs/log_import.hpp"
#include "tb/logs/loss_pattern.hpp"

namespace tb::logs {
namespace {

namespace fs = std::filesystem;
using detail::readScriptLossLine;

class ScriptLoss : public ::testing::Test {
 protected:
  fs::path write(const std::string& name, const std::string& text) const {
    return scratch_.write(name, text);
  }
  test::ScratchDir scratch_;
  const fs::path& dir_ = scratch_.path();
};

std::string engineStep(int step) {
  const std::string n = std::to_string(step);
  return "[2023-08-02 00:41:17,935] [INFO] [logging.py:96:log_dist] [Rank 0] step=" + n +
         ", skipped=0, lr=[0.0001], mom=[(0.9, 0.999)]\n"
         "[2023-08-02 00:41:17,936] [INFO] [timer.py:215:stop] epoch=0/micro_step=" +
         n + "/global_step=" + n +
         ", RunningAvgSamplesPerSec=220.5, CurrSamplesPerSec=222.0, MemAllocated=0.07GB, "
         "MaxMemAllocated=1.36GB\n";
}

bool hasHint(const ImportedLog& log, const std::string& text) {
  for (const std::string& hint : log.hints) {
    if (hint.find(text) != std::string::npos) return true;
  }
  return false;
}

std::vector<std::pair<std::int64_t, double>> losses(const runs::ImportedRun& run) {
  std::vector<std::pair<std::int64_t, double>> out;
  for (const auto& step : run.steps) {
    if (step.loss) out.emplace_back(step.step, *step.loss);
  }
  return out;
}

using Curve = std::vector<std::pair<std::int64_t, double>>;

TEST(ScriptLossLine, TheCommonFormsAreRead) {
  EXPECT_DOUBLE_EQ(readScriptLossLine("[Rank 0] Loss: 10.8766")->value, 10.8766);
  EXPECT_EQ(readScriptLossLine("[Rank 0] Loss: 10.8766")->rank, 0);
  EXPECT_EQ(readScriptLossLine("2023-08-02 | INFO | m:f:1 - [Rank 3] Loss: 2")->rank, 3);
  EXPECT_DOUBLE_EQ(readScriptLossLine("epoch 1 loss: 2.25")->value, 2.25);
  EXPECT_DOUBLE_EQ(readScriptLossLine("INFO:__main__:loss = 2.5")->value, 2.5);
  EXPECT_DOUBLE_EQ(readScriptLossLine("it 10 loss=1.5e-01, lr=1e-4")->value, 0.15);
  EXPECT_FALSE(readScriptLossLine("INFO:__main__:loss = 2.5")->rank);
}

TEST(ScriptLossLine, OtherLossesAreNotTheTrainingLoss) {
  for (const char* line :
       {"val loss: 2.0", "eval loss = 2.0", "validation loss: 1", "test loss=3", "eval_loss: 2.0",
        "train_loss=2.0", "Attempted loss scale: 65536, reducing to 32768", "loss: nan-ish",
        "lossy: 2.0", "no loss here"}) {
    EXPECT_FALSE(readScriptLossLine(line)) << line;
  }
}

TEST(ScriptLossReal, DeepSpeedExamplesBertLogGetsItsLossCurve) {
  // SeekPoint/DeepSpeedExamples' train_bert_ds.py log: the engine prints
  // steps 10 and 20, the script its loss after each.
  const auto imported = importLog(test::fixture("deepspeed/v0.10_bert_fp16.log"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(losses(imported->run), (Curve{{10, 10.8766}, {20, 10.2361}}));
  EXPECT_NE(std::find(imported->found.begin(), imported->found.end(), "loss"),
            imported->found.end());
  EXPECT_TRUE(hasHint(*imported, "loss from the script's own lines: 2 values"));
}

TEST_F(ScriptLoss, TwoLoggerFormsAndTwoRanksCountEachStepOnce) {
  std::string log;
  log += engineStep(10);
  log += "2023-08-02 00:41:17.936 | INFO     | __main__:log_dist:54 - [Rank 1] Loss: 9.5\n";
  log += "2023-08-02 00:41:17.936 | INFO     | __main__:log_dist:54 - [Rank 0] Loss: 10.5\n";
  log += engineStep(20);
  log += "2023-08-02 00:41:18.936 | INFO     | __main__:log_dist:54 - [Rank 0] Loss: 10.25\n";
  log += "2023-08-02 00:41:18.936 | INFO     | __main__:log_dist:54 - [Rank 1] Loss: 9.25\n";
  log += engineStep(30);
  log += "INFO:__main__:loss = 10.125\n";
  const auto imported = importLog(write("train.log", log));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  // Rank 1 spoke first at step 10; once rank 0 is seen, it is rank 0's.
  EXPECT_EQ(losses(imported->run), (Curve{{10, 9.5}, {20, 10.25}, {30, 10.125}}));
  EXPECT_TRUE(hasHint(*imported, "1 loss line of other ranks left out"));
}

TEST_F(ScriptLoss, ALossBeforeTheFirstStepIsLeftOutAndSaid) {
  const auto imported = importLog(write("train.log", "[Rank 0] Loss: 11.0\n" + engineStep(10)));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_TRUE(losses(imported->run).empty());
  EXPECT_TRUE(hasHint(*imported, "1 loss line with no step record of their own left out"));
}

TEST_F(ScriptLoss, ALogWithNoLossNamesTheOption) {
  const auto imported = importLog(test::fixture("deepspeed/v0.7_running_avg.log"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_TRUE(hasHint(*imported, "no loss in the file: --loss-pattern REGEX"));
}

TEST_F(ScriptLoss, APatternReadsACustomLineWithItsOwnStep) {
  std::string log = engineStep(10) + engineStep(20) + engineStep(30);
  log += "[train] iter 10 objective=3.5\n[train] iter 20 objective=3.25\n";
  log += "[train] iter 30 objective=3.0\n[train] iter 30 objective=nan?\n";
  ImportOptions options;
  options.lossPattern = R"(iter (?<step>\d+) objective=(\S+))";
  const auto imported = importLog(write("train.log", log), options);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  // Each loss line names its step; they come after all three steps, which
  // are held back for them.
  EXPECT_EQ(losses(imported->run), (Curve{{10, 3.5}, {20, 3.25}, {30, 3.0}}));
  EXPECT_TRUE(hasHint(*imported, "1 match whose group is no number (the first: 'nan?')"));
}

TEST_F(ScriptLoss, APatternWithoutAStepGroupTakesTheLastPrintedStep) {
  std::string log = engineStep(10) + "xent 3.5 |\n" + engineStep(20) + "xent 3.25 |\n";
  ImportOptions options;
  options.lossPattern = R"(xent ([0-9.]+))";
  const auto imported = importLog(write("train.log", log), options);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(losses(imported->run), (Curve{{10, 3.5}, {20, 3.25}}));
  EXPECT_TRUE(hasHint(*imported, "loss from --loss-pattern 'xent ([0-9.]+)': 2 values"));
}

TEST_F(ScriptLoss, APatternWinsOverTheFrameworksOwnLoss) {
  // torchtitan prints its loss; the pattern reads the script's instead.
  const std::string log =
      "[titan] 2025-01-01 00:00:00,000 - root - INFO - step:  1  loss:  8.0000  memory: 10.00GiB"
      "(12.50%)  tps: 1,000  tflops: 50.00  mfu: 5.00%\n"
      "smoothed 7.5\n";
  ImportOptions options;
  options.lossPattern = "smoothed ([0-9.]+)";
  const auto imported = importLog(write("titan.log", log), options);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.format, "torchtitan");
  EXPECT_EQ(losses(imported->run), (Curve{{1, 7.5}}));
}

TEST_F(ScriptLoss, APatternThatMatchesNothingIsSaidAndNothingIsLost) {
  ImportOptions options;
  options.lossPattern = "objective=([0-9.]+)";
  const auto imported = importLog(test::fixture("deepspeed/v0.7_running_avg.log"), options);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.records, 2);
  EXPECT_TRUE(hasHint(*imported, "--loss-pattern 'objective=([0-9.]+)' matched no line of"));
}

TEST_F(ScriptLoss, APatternOnADocumentFormatIsSaidUnused) {
  ImportOptions options;
  options.lossPattern = "loss=([0-9.]+)";
  const auto imported = importLog(test::fixture("hf-trainer/train_results.json"), options);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_TRUE(hasHint(*imported, "--loss-pattern is for text logs; hf-trainer files"));
}

TEST(LossPatternCompile, BadPatternsAreRefusedNamingTheOption) {
  const auto message = [](const char* text) {
    const auto compiled = LossPattern::compile(text);
    EXPECT_FALSE(compiled.ok()) << text;
    return compiled.ok() ? std::string() : compiled.error().message;
  };
  EXPECT_NE(message("loss=([0-9").find("--loss-pattern 'loss=([0-9': not a regular expression"),
            std::string::npos);
  EXPECT_NE(message("loss=[0-9.]+").find("no capture group for the loss"), std::string::npos);
  EXPECT_NE(message("(?<step>\\d+) only").find("no capture group for the loss"), std::string::npos);
  EXPECT_NE(message("(?<value>[0-9.]+)").find("the named group 'value'"), std::string::npos);
  EXPECT_NE(message("").find("empty"), std::string::npos);
  EXPECT_EQ(LossPattern::compile("loss=[0-9.]+").error().kind, ErrorKind::BadInput);
}

TEST(LossPatternCompile, GroupsAreCountedPastEscapesClassesAndNonCapturingGroups) {
  const auto pattern = LossPattern::compile(R"(\((?:a|b)[(] (?<step>\d+) (\d+\.\d+))");
  ASSERT_TRUE(pattern.ok()) << pattern.error().message;
  const auto match = pattern->find("x(a( 12 3.25 y");
  ASSERT_TRUE(match);
  EXPECT_EQ(match->value, "3.25");
  EXPECT_EQ(match->step, "12");
}

TEST_F(ScriptLoss, ABadPatternFailsTheImport) {
  ImportOptions options;
  options.lossPattern = "loss=[0-9.]+";
  const auto imported = importLog(test::fixture("deepspeed/v0.10_bert_fp16.log"), options);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.error().kind, ErrorKind::BadInput);
}

}  // namespace
}  // namespace tb::logs
