// The planner picks the cheapest policy in time that fits the budget less
// its margin, reports the whole curve, and says how much budget would do
// when nothing fits.
#include "tb/memory/planner.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "memory_test_shapes.hpp"

namespace tb::memory {
namespace {

PredictionInput smallEngine() {
  PredictionInput input;
  input.model = test::preset("small");
  return input;
}

RecomputePlan plan(const PredictionInput& input, std::uint64_t budget,
                   double margin = kDefaultPlanMargin) {
  auto result = planRecompute(input, budget, margin);
  EXPECT_TRUE(result.ok());
  return result.ok() ? *result : RecomputePlan{};
}

std::uint64_t budgetFor(std::uint64_t peak, double margin) {
  return static_cast<std::uint64_t>(static_cast<double>(peak) / (1.0 - margin)) + 1;
}

TEST(RecomputePlanner, CurveRunsFromNoneToFullWithFallingPeakAndRisingTime) {
  const RecomputePlan p = plan(smallEngine(), 1ull << 40);
  ASSERT_EQ(p.curve.size(), 7u);  // k = 0 .. 6 blocks
  for (std::size_t k = 0; k < p.curve.size(); ++k) EXPECT_EQ(p.curve[k].k, std::int64_t(k));
  for (std::size_t k = 1; k < p.curve.size(); ++k) {
    EXPECT_LT(p.curve[k].peakBytes, p.curve[k - 1].peakBytes);
    EXPECT_GT(p.curve[k].timeRatio, p.curve[k - 1].timeRatio);
  }
  EXPECT_EQ(p.curve.front().timeRatio, 1.0);
  EXPECT_EQ(p.selective.k, -1);
}

TEST(RecomputePlanner, AmpleBudgetRecomputesNothing) {
  const RecomputePlan p = plan(smallEngine(), 1ull << 40);
  ASSERT_TRUE(p.fits);
  EXPECT_EQ(p.policy, (RecomputePolicy{RecomputeKind::None, 0}));
  EXPECT_EQ(p.timeOverheadRatio, 0.0);
  EXPECT_EQ(p.predictedPeakBytes, p.curve.front().peakBytes);
}

TEST(RecomputePlanner, PicksTheFewestLayersThatFitWhenNoModuleSetDoes) {
  // The compiled step keeps so little per block that no module set alone
  // meets a budget near full recomputation's peak, so K full blocks decide.
  PredictionInput input = smallEngine();
  input.compiledStep = true;
  const RecomputePlan probe = plan(input, 1ull << 40);
  const std::uint64_t target = probe.curve[5].peakBytes;
  const RecomputePlan p = plan(input, budgetFor(target, kDefaultPlanMargin));
  ASSERT_TRUE(p.fits);
  EXPECT_EQ(p.policy.kind, RecomputeKind::Layers);
  EXPECT_LE(p.policy.layers, 5);
  EXPECT_LE(p.timeOverheadRatio, probe.curve[5].timeRatio - 1.0 + 1e-12);
  // The next cheaper layer count would not have fitted inside budget less margin.
  const auto previous = static_cast<std::size_t>(p.policy.layers) - 1;
  EXPECT_GT(static_cast<double>(probe.curve[previous].peakBytes),
            static_cast<double>(p.budgetBytes) * (1.0 - p.margin));
}

TEST(RecomputePlanner, RebuildsCheapModulesOfEveryBlockBeforeRecomputingWholeBlocks) {
  // A budget layers:4 meets is met by the norms, the gate and the attention
  // core of every block at a fraction of four blocks' extra forward.
  const RecomputePlan probe = plan(smallEngine(), 1ull << 40);
  const RecomputePlan p = plan(smallEngine(), budgetFor(probe.curve[4].peakBytes, 0.05));
  ASSERT_TRUE(p.fits);
  EXPECT_NE(selectiveModules(p.policy), 0);
  EXPECT_LT(p.timeOverheadRatio, probe.curve[2].timeRatio - 1.0);
  EXPECT_LE(static_cast<double>(p.predictedPeakBytes), static_cast<double>(p.budgetBytes) * 0.95);
}

TEST(RecomputePlanner, NamesTheNextCheaperCandidateThatDidNotFit) {
  const RecomputePlan probe = plan(smallEngine(), 1ull << 40);
  const RecomputePlan p = plan(smallEngine(), budgetFor(probe.curve[4].peakBytes, 0.05));
  ASSERT_TRUE(p.fits);
  ASSERT_TRUE(p.nextCheaper.has_value());
  EXPECT_LT(p.nextCheaperPoint.timeRatio, 1.0 + p.timeOverheadRatio);
  EXPECT_GT(static_cast<double>(p.nextCheaperPoint.peakBytes),
            static_cast<double>(p.budgetBytes) * (1.0 - p.margin));
  EXPECT_FALSE(plan(smallEngine(), 1ull << 40).nextCheaper.has_value());  // none is cheapest
}

TEST(RecomputePlanner, PutsFullBlocksBeforeModuleSetsWhenModulesAloneDoNotFit) {
  const PredictionInput input = smallEngine();
  PredictionInput lean = input;
  lean.recompute = {RecomputeKind::Selective, 0, model::kAllRecomputeModules};
  const std::uint64_t leanPeak = test::predict(lean).totalBytes;
  // Just under what every module of every block reaches.
  const RecomputePlan p = plan(input, budgetFor(leanPeak - (4u << 20), 0.05));
  ASSERT_TRUE(p.fits);
  EXPECT_EQ(p.policy.kind, RecomputeKind::Layers);
  EXPECT_GE(p.policy.layers, 1);
  EXPECT_NE(p.policy.modules, 0);
  EXPECT_EQ(toString(p.policy).find("layers:"), 0u);
  EXPECT_NE(toString(p.policy).find("+selective"), std::string::npos);
}

TEST(RecomputePlanner, RebuildsTheHeadWhereThatBeatsFullBlocks) {
  // small under the tuned runtime at 70 % of its no-recompute peak, the
  // benchmark's budget: every block module alone is over it, and rebuilding
  // the head's logits (one more head product) is cheaper than whole blocks.
  PredictionInput input = smallEngine();
  input.flatGradients = input.gqaInPlace = true;
  const RecomputePlan probe = plan(input, 1ull << 40);
  const auto budget =
      static_cast<std::uint64_t>(0.7 * static_cast<double>(probe.curve[0].peakBytes));
  const RecomputePlan p = plan(input, budget);
  ASSERT_TRUE(p.fits);
  EXPECT_EQ(toString(p.policy), "selective:core_attn,layernorm,mlp_act,head");

  // Nowhere else does the head module change the step, so it is not offered.
  input.compiledStep = true;
  const RecomputePlan compiled = plan(input, budget);
  EXPECT_EQ(selectiveModules(compiled.policy) & model::kOutputHead, 0) << toString(compiled.policy);
  PredictionInput cluster = smallEngine();
  cluster.profile = Profile::Fsdp;
  cluster.parallel.dtype = DType::Bf16;
  const RecomputePlan fsdp = plan(cluster, plan(cluster, 1ull << 40).curve[3].peakBytes);
  EXPECT_EQ(selectiveModules(fsdp.policy) & model::kOutputHead, 0) << toString(fsdp.policy);
}

TEST(RecomputePlanner, PrefersSelectiveWhenItFitsAndCostsLessTime) {
  const RecomputePlan probe = plan(smallEngine(), 1ull << 40);
  const RecomputePlan p = plan(smallEngine(), budgetFor(probe.selective.peakBytes, 0.05));
  ASSERT_TRUE(p.fits);
  // Selective costs the attention core's forward only; check it was cheaper
  // than every layer count that also fits.
  for (const CurvePoint& point : probe.curve) {
    if (point.peakBytes <= p.predictedPeakBytes && point.k > 0) {
      EXPECT_LT(probe.selective.timeRatio, point.timeRatio);
    }
  }
  EXPECT_EQ(p.policy.kind, RecomputeKind::Selective);
}

TEST(RecomputePlanner, AllBlocksRecomputedIsReportedAsFull) {
  // Long micro-batches, so that activations decide the peak and only full
  // fits; bf16, where the head module (a float32 chunked head) is not on
  // offer and cannot take memory off full's peak.
  PredictionInput input = smallEngine();
  input.model.batch = 32;
  input.parallel.dtype = DType::Bf16;
  const RecomputePlan probe = plan(input, 1ull << 40);
  const RecomputePlan p = plan(input, budgetFor(probe.curve.back().peakBytes, 0.05));
  ASSERT_TRUE(p.fits);
  EXPECT_EQ(p.policy, (RecomputePolicy{RecomputeKind::Full, 0}));
}

TEST(RecomputePlanner, BudgetNothingFitsInSaysTheSmallestThatWould) {
  const RecomputePlan probe = plan(smallEngine(), 1ull << 40);
  const RecomputePlan p = plan(smallEngine(), probe.curve.back().peakBytes / 2);
  EXPECT_FALSE(p.fits);
  EXPECT_EQ(p.smallestBudgetBytes, static_cast<std::uint64_t>(std::ceil(
                                       static_cast<double>(probe.curve.back().peakBytes) / 0.95)));
  // That budget is indeed enough.
  EXPECT_TRUE(plan(smallEngine(), p.smallestBudgetBytes).fits);
}

TEST(RecomputePlanner, MarginIsKeptFree) {
  const RecomputePlan probe = plan(smallEngine(), 1ull << 40, 0.0);
  const std::uint64_t exact = probe.curve.front().peakBytes;
  EXPECT_EQ(plan(smallEngine(), exact, 0.0).policy.kind, RecomputeKind::None);
  EXPECT_NE(plan(smallEngine(), exact, 0.10).policy.kind, RecomputeKind::None);
}

TEST(RecomputePlanner, RefusesAMarginOutsideZeroToOne) {
  auto result = planRecompute(smallEngine(), 1ull << 30, 1.5);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ErrorKind::BadInput);
  EXPECT_NE(result.error().message.find("--margin"), std::string::npos);
}

TEST(RecomputePlanner, Llama3EightBOnAnEightyGigabyteCardNeedsRecomputation) {
  PredictionInput input;
  input.model = test::preset("llama3-8b");
  input.model.seq = 8192;
  input.model.batch = 2;
  input.profile = Profile::Fsdp;
  input.parallel = {8, 1, 1, 3, false, true, DType::Bf16};
  const RecomputePlan p = plan(input, 80ull << 30);
  ASSERT_TRUE(p.fits);
  EXPECT_NE(p.policy.kind, RecomputeKind::None);
  EXPECT_LE(static_cast<double>(p.predictedPeakBytes), 0.95 * static_cast<double>(80ull << 30));
  EXPECT_GT(p.curve.front().peakBytes, 80ull << 30);
}

TEST(RecomputePlanner, EachFrameworkIsProposedOnlyWhatItCanSpell) {
  // Budgets from the no-recompute peak down past full recomputation's, for a
  // Megatron, FSDP, DeepSpeed and torchtitan job: every plan that fits has the
  // framework's own settings, and so has the next cheaper candidate.
  for (const Profile profile :
       {Profile::Megatron, Profile::Fsdp, Profile::DeepSpeed, Profile::Torchtitan}) {
    PredictionInput input;
    input.model = test::preset("llama3-8b");
    input.model.seq = 8192;
    input.profile = profile;
    input.parallel = {8, 1, 1, profile == Profile::Megatron ? 1 : 3, false, true, DType::Bf16};
    const RecomputePlan probe = plan(input, 1ull << 44);
    const std::uint64_t top = probe.curve.front().peakBytes;
    const std::uint64_t bottom = probe.curve.back().peakBytes;
    int fitted = 0;
    for (int step = 0; step <= 20; ++step) {
      const std::uint64_t peak = bottom + (top - bottom) / 20 * static_cast<std::uint64_t>(step);
      const RecomputePlan p = plan(input, budgetFor(peak, kDefaultPlanMargin));
      if (!p.fits) continue;
      ++fitted;
      EXPECT_FALSE(frameworkSpelling(profile, p.policy).empty())
          << toString(profile) << " " << toString(p.policy);
      if (p.nextCheaper) {
        EXPECT_FALSE(frameworkSpelling(profile, *p.nextCheaper).empty())
            << toString(profile) << " next " << toString(*p.nextCheaper);
      }
    }
    EXPECT_GE(fitted, 15) << toString(profile);
  }
  // The engine keeps its wider set: a module set behind K full blocks.
  const PredictionInput engine = smallEngine();
  PredictionInput lean = engine;
  lean.recompute = {RecomputeKind::Selective, 0, model::kAllRecomputeModules};
  const RecomputePlan p =
      plan(engine, budgetFor(test::predict(lean).totalBytes - (4u << 20), 0.05));
  EXPECT_TRUE(frameworkSpelling(Profile::Engine, p.policy).empty());
  EXPECT_NE(p.policy.modules, 0);
}

}  // namespace
}  // namespace tb::memory
