// Bytes per parameter by framework and ZeRO stage (Megatron's and
// DeepSpeed's published tables), and how TP, SP and PP divide the rest.
#include <gtest/gtest.h>

#include "memory_test_shapes.hpp"

namespace tb::memory {
namespace {

constexpr std::uint64_t kP = 8'030'261'248;  // llama3-8b

PredictionInput cluster(Profile profile, std::int64_t dp, int zero) {
  PredictionInput input;
  input.model = test::preset("llama3-8b");
  input.profile = profile;
  input.parallel.dtype = DType::Bf16;
  input.parallel.flashAttention = true;
  input.parallel.dp = dp;
  input.parallel.zero = zero;
  return input;
}

std::uint64_t states(const MemoryBreakdown& b) { return b.weights + b.gradients + b.optimizer; }

TEST(MemoryParallel, MegatronPlainOptimizerHolds18BytesPerParameter) {
  const MemoryPrediction p = test::predict(cluster(Profile::Megatron, 8, 0));
  EXPECT_EQ(p.breakdown.weights, 2 * kP);
  EXPECT_EQ(p.breakdown.gradients, 4 * kP);
  EXPECT_EQ(p.breakdown.optimizer, 12 * kP);
}

TEST(MemoryParallel, MegatronDistributedOptimizerHolds6Plus12OverDBytes) {
  for (int zero : {1, 2}) {
    const MemoryPrediction p = test::predict(cluster(Profile::Megatron, 8, zero));
    EXPECT_EQ(states(p.breakdown), 6 * kP + 12 * kP / 8) << "zero " << zero;
  }
}

TEST(MemoryParallel, DeepSpeedZero2Holds2PPlus18POverN) {
  const MemoryPrediction p = test::predict(cluster(Profile::DeepSpeed, 8, 2));
  EXPECT_EQ(p.breakdown.weights, 2 * kP);
  EXPECT_EQ(states(p.breakdown), 2 * kP + 18 * kP / 8);
}

TEST(MemoryParallel, DeepSpeedZero3ShardsEverythingAndGathersTheLargestLayer) {
  const MemoryPrediction p = test::predict(cluster(Profile::DeepSpeed, 8, 3));
  const std::uint64_t largest = 128256ull * 4096ull;  // the embedding
  EXPECT_EQ(p.breakdown.weights, 2 * kP / 8 + 4 * largest);
  EXPECT_EQ(p.breakdown.gradients, 6 * kP / 8);
  EXPECT_EQ(p.breakdown.optimizer, 12 * kP / 8);
}

TEST(MemoryParallel, EachZeroStageShardsMoreThanTheOneBefore) {
  for (Profile profile : {Profile::Megatron, Profile::DeepSpeed, Profile::Fsdp}) {
    std::uint64_t previous = UINT64_MAX;
    for (int zero = 0; zero <= 3; ++zero) {
      const MemoryPrediction p = test::predict(cluster(profile, 8, zero));
      EXPECT_LE(p.totalBytes, previous) << toString(profile) << " zero " << zero;
      previous = p.totalBytes;
    }
  }
}

TEST(MemoryParallel, EngineZeroOneDividesTheMomentsAndTheStepsTemporaryByTheRanks) {
  // The engine's flat buffers in fp32: weights 4, gradients 4, moments 8 per
  // parameter; ZeRO-1 over 4 ranks keeps 8/4 of the moments, and the
  // optimizer step's sqrt(v) temporary covers only the rank's shard.
  PredictionInput input;
  input.model = test::headHeavyModel();
  input.flatGradients = true;
  input.parallel.dp = 4;
  const MemoryPrediction whole = test::predict(input);
  input.parallel.zero = 1;
  const MemoryPrediction sharded = test::predict(input);
  const std::uint64_t params = 16'600;
  ASSERT_EQ(whole.peakPhase, "optimizer step");
  EXPECT_EQ(whole.breakdown.optimizer, 8 * params + 4 * params);
  EXPECT_EQ(whole.breakdown.weights, sharded.breakdown.weights);
  EXPECT_EQ(whole.breakdown.gradients, sharded.breakdown.gradients);
  // Sharded, the head's backward (its logits) becomes the larger phase.
  EXPECT_LE(sharded.breakdown.optimizer, 8 * params / 4 + 4 * params / 4);
  EXPECT_LT(sharded.totalBytes, whole.totalBytes - (8 - 2) * params);
  input.parallel.zero = 2;
  const auto refused = predictMemory(input);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("--zero: stage 2"), std::string::npos);
}

TEST(MemoryParallel, ZeroStagesChangeNothingWithoutDataParallelRanks) {
  const MemoryPrediction plain = test::predict(cluster(Profile::DeepSpeed, 1, 0));
  const MemoryPrediction zero2 = test::predict(cluster(Profile::DeepSpeed, 1, 2));
  EXPECT_EQ(states(plain.breakdown), states(zero2.breakdown));
}

TEST(MemoryParallel, TensorParallelWithSequenceParallelSplitsEveryActivation) {
  PredictionInput one = cluster(Profile::Megatron, 1, 0);
  one.parallel.sequenceParallel = true;
  one.parallel.flashAttention = false;
  PredictionInput four = one;
  four.parallel.tp = 4;
  const MemoryPrediction a = test::predict(one);
  const MemoryPrediction b = test::predict(four);
  EXPECT_EQ(b.perLayer.kept * 4, a.perLayer.kept);
  EXPECT_EQ(b.perLayer.checkpoint * 4, a.perLayer.checkpoint);
  EXPECT_EQ(b.paramsPerRank, a.paramsPerRank / 4);
}

TEST(MemoryParallel, TensorParallelWithoutSequenceParallelKeepsNormActivationsWhole) {
  // Korthikanti Table 2: sbh(10 + 24/t) for GPT; for the Llama block the
  // four norm-side tensors (x, n1, h, n2: 8sbh in bf16) stay whole.
  PredictionInput one = cluster(Profile::Megatron, 1, 0);
  PredictionInput two = one;
  two.parallel.tp = 2;
  const MemoryPrediction a = test::predict(one);
  const MemoryPrediction b = test::predict(two);
  const std::uint64_t replicated = 8ull * 4096 * 4096;  // 4 tensors x 2 B x s·h
  EXPECT_EQ(b.perLayer.kept, replicated + (a.perLayer.kept - replicated) / 2);
}

TEST(MemoryParallel, FirstPipelineStageHoldsAboutAllLayersOfActivations) {
  // 1F1B: the first of p stages holds p micro-batches of L/p blocks each.
  PredictionInput flat = cluster(Profile::Megatron, 1, 0);
  flat.model.seq = 8192;
  PredictionInput piped = flat;
  piped.parallel.pp = 4;
  const MemoryPrediction a = test::predict(flat);
  const MemoryPrediction b = test::predict(piped);
  EXPECT_EQ(b.stageLayers, 8);
  EXPECT_EQ(b.peakPhase, "first stage, layer 7 backward");
  EXPECT_EQ(b.breakdown.activations, 32 * b.perLayer.kept);
  EXPECT_GE(a.breakdown.activations, b.breakdown.activations);
  EXPECT_LT(b.breakdown.weights, a.breakdown.weights / 3);
}

}  // namespace
}  // namespace tb::memory
