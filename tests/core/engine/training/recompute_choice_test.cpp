// The spellings of --recompute and the choice a run makes from them: bad
// values are named, layers:K is checked against the model, and auto plans
// against the budget with core/memory's engine profile (none when the budget
// is ample, something that fits when it is tight, a clear refusal when
// nothing fits).
#include <gtest/gtest.h>

#include "training/recompute_choice.hpp"
#include "tb/engine/run_config.hpp"
#include "tb/memory/predictor.hpp"
#include "tb/model/model_config.hpp"

namespace {

using tb::engine::RecomputeMode;
using tb::engine::RecomputePolicy;

tb::engine::RunConfig smallRun(RecomputePolicy policy, std::uint64_t budget) {
  tb::engine::RunConfig config;
  config.model = *tb::model::findPreset("small");
  config.recompute = policy;
  config.memoryBudgetBytes = budget;
  return config;
}

std::uint64_t predictedPeak(tb::memory::RecomputeKind kind) {
  tb::memory::PredictionInput input;
  input.model = *tb::model::findPreset("small");
  input.recompute = {kind, 0};
  // smallRun() leaves the engine's default, tuned runtime in place.
  input.flatGradients = true;
  input.gqaInPlace = true;
  return tb::memory::predictMemory(input)->totalBytes;
}

TEST(RecomputePolicyParse, AcceptsEverySpellingAndRoundTrips) {
  for (const char* text : {"none", "selective", "full", "auto", "layers:0", "layers:12",
                           "selective:layernorm", "selective:core_attn,layernorm,mlp_act",
                           "layers:2+selective", "layers:1+selective:layernorm,mlp_act"}) {
    const auto policy = tb::engine::parseRecomputePolicy(text);
    ASSERT_TRUE(policy) << text;
    EXPECT_EQ(tb::engine::toString(*policy), text);
  }
  EXPECT_EQ(*tb::engine::parseRecomputePolicy("layers:3"),
            (RecomputePolicy{RecomputeMode::Layers, 3}));
  // Any order in, the fixed order out; core_attn alone is plain selective.
  EXPECT_EQ(tb::engine::toString(
                *tb::engine::parseRecomputePolicy("selective:mlp_act,core_attn,layernorm")),
            "selective:core_attn,layernorm,mlp_act");
  EXPECT_EQ(tb::engine::toString(*tb::engine::parseRecomputePolicy("selective:core_attn")),
            "selective");
}

TEST(RecomputePolicyParse, NamesTheBadValue) {
  for (const char* text : {"", "some", "layers:", "layers:-1", "layers:2x", "Full", "layers:k",
                           "selective:", "selective:mlp", "selective:layernorm,layernorm",
                           "layers:2+", "layers:2+full", "full+selective",
                           // The frameworks' policies are not the engine's.
                           "op", "every:2", "uniform:3", "torchtitan:op"}) {
    const auto policy = tb::engine::parseRecomputePolicy(text);
    ASSERT_FALSE(policy) << text;
    EXPECT_EQ(policy.error().kind, tb::ErrorKind::BadInput);
    EXPECT_NE(policy.error().message.find("'" + std::string(text) + "'"), std::string::npos)
        << policy.error().message;
  }
}

TEST(RecomputeChoice, LayersPastTheModelAreBadInputAndTheEndsAreNamedPlainly) {
  auto choice = tb::engine::chooseRecompute(smallRun({RecomputeMode::Layers, 7}, 0));
  ASSERT_FALSE(choice);
  EXPECT_NE(choice.error().message.find("layers:7"), std::string::npos);
  choice = tb::engine::chooseRecompute(smallRun({RecomputeMode::Layers, 0}, 0));
  EXPECT_EQ(tb::engine::toString(choice->policy), "none");
  choice = tb::engine::chooseRecompute(smallRun({RecomputeMode::Layers, 6}, 0));
  EXPECT_EQ(tb::engine::toString(choice->policy), "full");
  choice = tb::engine::chooseRecompute(smallRun({RecomputeMode::Layers, 2}, 0));
  EXPECT_EQ(tb::engine::toString(choice->policy), "layers:2");
  EXPECT_EQ(choice->reason, "requested");
}

TEST(RecomputeChoice, AutoKeepsEverythingWithoutABudgetOrWithAnAmpleOne) {
  auto choice = tb::engine::chooseRecompute(smallRun({RecomputeMode::Auto, 0}, 0));
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->policy.mode, RecomputeMode::None);
  const std::uint64_t none = predictedPeak(tb::memory::RecomputeKind::None);
  choice = tb::engine::chooseRecompute(smallRun({RecomputeMode::Auto, 0}, 2 * none));
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->policy.mode, RecomputeMode::None);
  EXPECT_EQ(choice->predictedPeakBytes, none);
  EXPECT_EQ(choice->requested.mode, RecomputeMode::Auto);
}

TEST(RecomputeChoice, AutoUnderATightBudgetPicksAPolicyThatFits) {
  const std::uint64_t none = predictedPeak(tb::memory::RecomputeKind::None);
  const std::uint64_t full = predictedPeak(tb::memory::RecomputeKind::Full);
  const std::uint64_t budget = (none + full) / 2;
  const auto choice = tb::engine::chooseRecompute(smallRun({RecomputeMode::Auto, 0}, budget));
  ASSERT_TRUE(choice);
  EXPECT_NE(choice->policy.mode, RecomputeMode::None);
  EXPECT_NE(choice->policy.mode, RecomputeMode::Auto);
  EXPECT_LE(static_cast<double>(choice->predictedPeakBytes), 0.95 * static_cast<double>(budget));
  EXPECT_GT(choice->timeOverheadRatio, 0.0);
}

TEST(RecomputeChoice, AutoRefusesABudgetNothingFitsAndNamesTheLeastThatWould) {
  const auto choice = tb::engine::chooseRecompute(smallRun({RecomputeMode::Auto, 0}, 1000));
  ASSERT_FALSE(choice);
  EXPECT_EQ(choice.error().kind, tb::ErrorKind::BadInput);
  EXPECT_NE(choice.error().message.find("least budget that fits is"), std::string::npos)
      << choice.error().message;
}

}  // namespace
