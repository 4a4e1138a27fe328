// Throughput over training time only: the Trainer's train_runtime spans the
// whole train() call, and the in-loop evaluations (and prediction passes a
// callback runs) inside it are timed by their own `<split>_runtime` entries,
// which the importer subtracts. The states are written as
// TrainerState.save_to_json writes them (indent 2, sorted keys).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "excluded_time.hpp"
#include "line_feed_support.hpp"
#include "tb/logs/log_import.hpp"

namespace tb::logs {
namespace {

namespace fs = std::filesystem;

class TrainerTime : public ::testing::Test {
 protected:
  fs::path write(const std::string& name, const std::string& text) const {
    return scratch_.write(name, text);
  }
  test::ScratchDir scratch_;
  const fs::path& dir_ = scratch_.path();
};

std::string state(const std::string& history) {
  return "{\n  \"global_step\": 20,\n  \"log_history\": [\n" + history +
         "\n  ],\n  \"max_steps\": 20\n}\n";
}

// 20 steps of 1.5 s (30 s of training), three evaluations of the main set,
// two of a second set, two prediction passes appended without "step" by a
// callback, 1 s of checkpoint saving the file does not time, and an
// evaluation after train() returned.
constexpr const char* kInterleaved = R"(
    {"epoch": 0.5, "learning_rate": 4e-05, "loss": 2.5, "step": 10},
    {"epoch": 0.5, "eval_loss": 2.4, "eval_runtime": 20.0, "eval_samples_per_second": 5.0, "step": 10},
    {"epoch": 0.5, "eval_squad_loss": 2.6, "eval_squad_runtime": 7.5, "step": 10},
    {"epoch": 0.5, "predict_loss": 2.4, "predict_runtime": 12.25},
    {"epoch": 1.0, "learning_rate": 2e-05, "loss": 2.0, "step": 20},
    {"epoch": 1.0, "eval_loss": 1.9, "eval_runtime": 22.0, "step": 20},
    {"epoch": 1.0, "eval_squad_loss": 2.1, "eval_squad_runtime": 7.5, "step": 20},
    {"epoch": 1.0, "predict_loss": 1.9, "predict_runtime": 12.75},
    {"epoch": 1.0, "eval_loss": 1.9, "eval_runtime": 21.0, "step": 20},
    {"epoch": 1.0, "step": 20, "total_flos": 6.0e15, "train_loss": 2.2, "train_runtime": 134.0, "train_samples_per_second": 1.194, "train_steps_per_second": 0.149},
    {"epoch": 1.0, "eval_loss": 1.9, "eval_runtime": 21.5, "step": 20})";

TEST_F(TrainerTime, EvaluationAndPredictionInsideTrainAreLeftOut) {
  const auto imported = importLog(write("trainer_state.json", state(kInterleaved)));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  const auto& summary = *imported->run.summary;
  ASSERT_EQ(summary.excluded.size(), 3U);
  EXPECT_EQ(summary.excluded[0], (runs::ExcludedTime{"eval", 63.0, 3}));
  EXPECT_EQ(summary.excluded[1], (runs::ExcludedTime{"eval_squad", 15.0, 2}));
  EXPECT_EQ(summary.excluded[2], (runs::ExcludedTime{"predict", 25.0, 2}));
  // The evaluation after the summary (21.5 s) is outside train(): not left out.
  ASSERT_TRUE(imported->excludedSeconds);
  EXPECT_DOUBLE_EQ(*imported->excludedSeconds, 103.0);
  EXPECT_EQ(imported->excludedKinds, (std::vector<std::string>{"eval", "eval_squad", "predict"}));

  // 134 s of runtime less 103 s is 31 s: 30 s of steps and 1 s of saving.
  const double training = 134.0 - 103.0;
  const auto& m = imported->medians;
  EXPECT_DOUBLE_EQ(*m.samplesPerSecond, 1.194 * 134.0 / training);
  EXPECT_DOUBLE_EQ(*m.stepTimeSeconds, 1.0 / (0.149 * 134.0 / training));
  // Within 5 % of the training's own 1.5 s a step; the whole-run figure
  // (6.7 s) is 4.5 times that.
  EXPECT_NEAR(*m.stepTimeSeconds, 1.5, 1.5 * 0.05);
  bool said = false;
  for (const std::string& hint : imported->hints) {
    if (hint.find("holds 63 s of eval (3 entries), 15 s of eval_squad (2 entries), 25 s of "
                  "predict (2 entries), left out") != std::string::npos &&
        hint.find("over the 31 s of training") != std::string::npos)
      said = true;
  }
  EXPECT_TRUE(said) << testing::PrintToString(imported->hints);
}

TEST_F(TrainerTime, RuntimesThatCannotFitInsideTheRunAreSaidNotSubtracted) {
  const std::string history = R"(
    {"epoch": 1.0, "loss": 2.0, "step": 20},
    {"epoch": 1.0, "eval_loss": 1.9, "eval_runtime": 90.0, "step": 20},
    {"epoch": 1.0, "predict_loss": 1.9, "predict_runtime": 60.0},
    {"epoch": 1.0, "step": 20, "train_runtime": 137.0, "train_samples_per_second": 1.168, "train_steps_per_second": 0.146})";
  const auto imported = importLog(write("trainer_state.json", state(history)));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_FALSE(imported->excludedSeconds);
  EXPECT_TRUE(imported->excludedKinds.empty());
  EXPECT_DOUBLE_EQ(*imported->medians.samplesPerSecond, 1.168);  // never negative or infinite
  bool said = false;
  for (const std::string& hint : imported->hints) {
    if (hint.find("add up to 150 s, not less than the summary's runtime of 137 s") !=
            std::string::npos &&
        hint.find("nothing is subtracted") != std::string::npos)
      said = true;
  }
  EXPECT_TRUE(said) << testing::PrintToString(imported->hints);
}

TEST_F(TrainerTime, EqualRuntimesLeaveNoTrainingTimeAndAreNotSubtracted) {
  const std::string history = R"(
    {"epoch": 1.0, "eval_runtime": 137.0, "step": 20},
    {"epoch": 1.0, "step": 20, "train_runtime": 137.0, "train_steps_per_second": 0.146})";
  const auto imported = importLog(write("trainer_state.json", state(history)));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_FALSE(imported->excludedSeconds);
  EXPECT_DOUBLE_EQ(*imported->medians.stepTimeSeconds, 1.0 / 0.146);
}

TEST_F(TrainerTime, ACheckpointsEvaluationsCountAgainstTheResultsFilesSummary) {
  // output_dir without save_state(): the newest checkpoint's state (no
  // summary yet) and train_results.json.
  write("out/checkpoint-10/trainer_state.json",
        state(R"(    {"epoch": 0.5, "loss": 2.5, "step": 10},
    {"epoch": 0.5, "eval_loss": 2.4, "eval_runtime": 40.0, "step": 10})"));
  write("out/train_results.json",
        "{\n    \"epoch\": 1.0,\n    \"train_runtime\": 100.0,\n    "
        "\"train_samples_per_second\": 2.0,\n    \"train_steps_per_second\": 0.2\n}");
  const auto imported = importLog(dir_ / "out");
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  ASSERT_TRUE(imported->excludedSeconds);
  EXPECT_DOUBLE_EQ(*imported->excludedSeconds, 40.0);
  EXPECT_DOUBLE_EQ(*imported->medians.samplesPerSecond, 2.0 * 100.0 / 60.0);
}

TEST_F(TrainerTime, ARuntimeThatIsNoNumberNamesTheEntryAndKey) {
  const std::string history = R"(
    {"epoch": 1.0, "eval_runtime": "slow", "step": 20},
    {"epoch": 1.0, "step": 20, "train_runtime": 137.0})";
  const auto imported = importLog(write("trainer_state.json", state(history)));
  ASSERT_FALSE(imported.ok());
  EXPECT_NE(imported.error().message.find("log_history[0]: expected a number for "
                                          "\"eval_runtime\""),
            std::string::npos)
      << imported.error().message;
}

// Jaong/Checkpoint-of-CPT: 64,358 s of train_runtime, of which ten epoch-end
// evaluations took 30,625.5 s and ten prediction passes 30,633.3 s.
TEST(TrainerTimeRealFile, APublishedRunsThroughputIsItsTraining) {
  const auto imported = importLog(test::fixture("hf-trainer/trainer_state_cpt_crlf.json"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  ASSERT_TRUE(imported->excludedSeconds);
  EXPECT_NEAR(*imported->excludedSeconds, 30625.5252 + 30633.3038, 1e-6);
  EXPECT_EQ(imported->excludedKinds, (std::vector<std::string>{"eval", "predict"}));
  const double training = 64358.151 - 30625.5252 - 30633.3038;  // 3,099.3 s
  EXPECT_NEAR(*imported->medians.samplesPerSecond, 0.511 * 64358.151 / training, 1e-9);
  EXPECT_NEAR(*imported->medians.stepTimeSeconds, training / (0.085 * 64358.151), 1e-9);
}

TEST(ExcludedTimeKinds, KeysAndTensorboardTagsNameTheirSplit) {
  using detail::nonTrainingRuntimeKind;
  using detail::nonTrainingRuntimeTagKind;
  EXPECT_EQ(nonTrainingRuntimeKind("eval_runtime"), "eval");
  EXPECT_EQ(nonTrainingRuntimeKind("eval_squad_runtime"), "eval_squad");
  EXPECT_EQ(nonTrainingRuntimeKind("predict_runtime"), "predict");
  EXPECT_EQ(nonTrainingRuntimeKind("train_runtime"), std::nullopt);
  EXPECT_EQ(nonTrainingRuntimeKind("_runtime"), std::nullopt);
  EXPECT_EQ(nonTrainingRuntimeKind("eval_loss"), std::nullopt);
  EXPECT_EQ(nonTrainingRuntimeTagKind("eval/runtime"), "eval");
  EXPECT_EQ(nonTrainingRuntimeTagKind("eval/squad_runtime"), "eval_squad");
  EXPECT_EQ(nonTrainingRuntimeTagKind("test/runtime"), "test");
  EXPECT_EQ(nonTrainingRuntimeTagKind("train/predict_runtime"), "predict");
  EXPECT_EQ(nonTrainingRuntimeTagKind("train/train_runtime"), std::nullopt);
  EXPECT_EQ(nonTrainingRuntimeTagKind("evaluation/runtime"), std::nullopt);
  EXPECT_EQ(nonTrainingRuntimeTagKind("lm loss"), std::nullopt);
}

}  // namespace
}  // namespace tb::logs
