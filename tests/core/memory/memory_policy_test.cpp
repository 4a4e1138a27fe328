// Recompute policies order as they must (full < selective < none for stored
// activations), layers:K interpolates between none and full, and the step
// time model charges one more forward per recomputed block.
#include <gtest/gtest.h>

#include "memory_test_shapes.hpp"

namespace tb::memory {
namespace {

PredictionInput withPolicy(Profile profile, RecomputePolicy policy) {
  PredictionInput input;
  input.model = test::preset("small");
  input.profile = profile;
  input.parallel.dtype = profile == Profile::Engine ? DType::Fp32 : DType::Bf16;
  input.recompute = policy;
  return input;
}

TEST(MemoryPolicy, FullKeepsLessThanSelectiveWhichKeepsLessThanNone) {
  for (Profile profile : {Profile::Engine, Profile::Megatron, Profile::DeepSpeed, Profile::Fsdp}) {
    const auto none = test::predict(withPolicy(profile, {RecomputeKind::None, 0}));
    const auto selective = test::predict(withPolicy(profile, {RecomputeKind::Selective, 0}));
    const auto full = test::predict(withPolicy(profile, {RecomputeKind::Full, 0}));
    EXPECT_LT(full.perLayer.checkpoint, none.perLayer.selective) << toString(profile);
    EXPECT_LT(none.perLayer.selective, none.perLayer.kept) << toString(profile);
    EXPECT_LT(full.totalBytes, selective.totalBytes) << toString(profile);
    EXPECT_LT(selective.totalBytes, none.totalBytes) << toString(profile);
  }
}

TEST(MemoryPolicy, EachSelectiveModuleSavesAndTheirSavingsAdd) {
  for (Profile profile : {Profile::Engine, Profile::Megatron, Profile::Fsdp}) {
    const auto none = test::predict(withPolicy(profile, {RecomputeKind::None, 0}));
    const auto core = test::predict(withPolicy(profile, {RecomputeKind::Selective, 0}));
    const auto norms =
        test::predict(withPolicy(profile, {RecomputeKind::Selective, 0, model::kNorms}));
    const auto gate =
        test::predict(withPolicy(profile, {RecomputeKind::Selective, 0, model::kMlpActivation}));
    const auto all = test::predict(
        withPolicy(profile, {RecomputeKind::Selective, 0, model::kAllRecomputeModules}));
    EXPECT_LT(norms.totalBytes, none.totalBytes) << toString(profile);
    EXPECT_LT(gate.totalBytes, none.totalBytes) << toString(profile);
    EXPECT_LT(all.totalBytes, core.totalBytes) << toString(profile);
    EXPECT_LT(all.totalBytes, norms.totalBytes) << toString(profile);
    EXPECT_LT(all.totalBytes, gate.totalBytes) << toString(profile);
    // Cheap elementwise rebuilds cost time, but less than one block's forward.
    const auto layer1 = test::predict(withPolicy(profile, {RecomputeKind::Layers, 1}));
    EXPECT_GT(all.timeRatio, 1.0) << toString(profile);
    EXPECT_LT(all.timeRatio, layer1.timeRatio) << toString(profile);
  }
}

TEST(MemoryPolicy, FullBlocksBeforeModuleSetsKeepLessThanEitherAlone) {
  const RecomputePolicy lean{RecomputeKind::Selective, 0, model::kAllRecomputeModules};
  const RecomputePolicy mixed{RecomputeKind::Layers, 2, model::kAllRecomputeModules};
  const auto leanOnly = test::predict(withPolicy(Profile::Engine, lean));
  const auto layersOnly = test::predict(withPolicy(Profile::Engine, {RecomputeKind::Layers, 2}));
  const auto both = test::predict(withPolicy(Profile::Engine, mixed));
  EXPECT_LT(both.totalBytes, leanOnly.totalBytes);
  EXPECT_LT(both.totalBytes, layersOnly.totalBytes);
  EXPECT_GT(both.timeRatio, layersOnly.timeRatio);
  EXPECT_EQ(toString(mixed), "layers:2+selective:core_attn,layernorm,mlp_act");
}

TEST(MemoryPolicy, LayersKFallsFromNoneToFullAsKGrows) {
  const auto none = test::predict(withPolicy(Profile::Engine, {RecomputeKind::None, 0}));
  const auto full = test::predict(withPolicy(Profile::Engine, {RecomputeKind::Full, 0}));
  std::uint64_t previous = none.totalBytes;
  for (std::int64_t k = 1; k <= 6; ++k) {
    const auto p = test::predict(withPolicy(Profile::Engine, {RecomputeKind::Layers, k}));
    EXPECT_LT(p.totalBytes, previous) << "k " << k;
    previous = p.totalBytes;
  }
  EXPECT_EQ(previous, full.totalBytes);
}

TEST(MemoryPolicy, RecomputingABlockCostsOneMoreForwardOfIt) {
  // Full recompute adds L block forwards to 3·(L blocks + head): just under 1/3.
  const auto full = test::predict(withPolicy(Profile::Engine, {RecomputeKind::Full, 0}));
  EXPECT_GT(full.timeRatio, 1.25);
  EXPECT_LT(full.timeRatio, 1.0 + 1.0 / 3.0);
  const auto half = test::predict(withPolicy(Profile::Engine, {RecomputeKind::Layers, 3}));
  EXPECT_NEAR(half.timeRatio - 1.0, (full.timeRatio - 1.0) / 2.0, 1e-12);
  const auto selective = test::predict(withPolicy(Profile::Engine, {RecomputeKind::Selective, 0}));
  EXPECT_GT(selective.timeRatio, 1.0);
  EXPECT_LT(selective.timeRatio, half.timeRatio);
  const auto none = test::predict(withPolicy(Profile::Engine, {RecomputeKind::None, 0}));
  EXPECT_EQ(none.timeRatio, 1.0);
}

TEST(MemoryPolicy, SelectiveIsFreeUnderFlashAttention) {
  PredictionInput input = withPolicy(Profile::Fsdp, {RecomputeKind::Selective, 0});
  input.parallel.flashAttention = true;
  const auto selective = test::predict(input);
  input.recompute = {RecomputeKind::None, 0};
  const auto none = test::predict(input);
  EXPECT_EQ(selective.totalBytes, none.totalBytes);
  EXPECT_EQ(selective.timeRatio, 1.0);
}

TEST(MemoryPolicy, ClusterProfilesPredictReservedMemoryAboveTensorBytes) {
  // The caching allocator's slack is charged on top of what tensors hold.
  const auto p = test::predict(withPolicy(Profile::Fsdp, {RecomputeKind::None, 0}));
  const std::uint64_t dynamic = p.breakdown.activations + p.breakdown.logits +
                                p.breakdown.recompute + p.breakdown.workspace;
  EXPECT_GT(p.breakdown.overhead, dynamic / 20);
}

}  // namespace
}  // namespace tb::memory
