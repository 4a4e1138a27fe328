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
        withPolicy(profile, {RecomputeKind::Selective, 0, model::kBlockRecomputeModules}));
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
  const RecomputePolicy lean{RecomputeKind::Selective, 0, model::kBlockRecomputeModules};
  const RecomputePolicy mixed{RecomputeKind::Layers, 2, model::kBlockRecomputeModules};
  const auto leanOnly = test::predict(withPolicy(Profile::Engine, lean));
  const auto layersOnly = test::predict(withPolicy(Profile::Engine, {RecomputeKind::Layers, 2}));
  const auto both = test::predict(withPolicy(Profile::Engine, mixed));
  EXPECT_LT(both.totalBytes, leanOnly.totalBytes);
  EXPECT_LT(both.totalBytes, layersOnly.totalBytes);
  EXPECT_GT(both.timeRatio, layersOnly.timeRatio);
  EXPECT_EQ(toString(mixed), "layers:2+selective:core_attn,layernorm,mlp_act");
}

TEST(MemoryPolicy, TheHeadModuleChunksTheEnginesLogitsForOneMoreHeadProduct) {
  const RecomputePolicy head{RecomputeKind::Selective, 0, model::kOutputHead};
  PredictionInput plain = withPolicy(Profile::Engine, {RecomputeKind::None, 0});
  PredictionInput rebuilt = withPolicy(Profile::Engine, head);
  const auto kept = test::predict(plain);
  const auto chunked = test::predict(rebuilt);
  EXPECT_LT(chunked.totalBytes, kept.totalBytes);
  // small: 1024 rows x 4096 logits at 12 bytes, against one 256-row chunk,
  // the row statistics and the head's two gradients.
  const double rows = 4 * 256;
  EXPECT_DOUBLE_EQ(static_cast<double>(kept.breakdown.logits), rows * 4096 * 12);
  // Once more the head's product (2·V·D per token) over 3·(6 blocks + head).
  const auto counts = model::parameterCount(plain.model);
  const double headForward = 2.0 * 4096 * 384;
  const double block =
      2.0 * static_cast<double>(counts - 2 * 4096 * 384 - 384) / 6 + 4.0 * 384 * 256;
  EXPECT_NEAR(chunked.timeRatio, 1.0 + headForward / (3.0 * (6 * block + headForward)), 1e-9);

  // The compiled step's head is chunked already, and bf16 has no chunked head.
  plain.compiledStep = rebuilt.compiledStep = true;
  EXPECT_EQ(test::predict(rebuilt).totalBytes, test::predict(plain).totalBytes);
  EXPECT_EQ(test::predict(rebuilt).timeRatio, 1.0);
  plain.compiledStep = rebuilt.compiledStep = false;
  plain.parallel.dtype = rebuilt.parallel.dtype = DType::Bf16;
  EXPECT_EQ(test::predict(rebuilt).totalBytes, test::predict(plain).totalBytes);
}

TEST(MemoryPolicy, ClusterProfilesHaveNoHeadModule) {
  for (Profile profile : {Profile::Megatron, Profile::DeepSpeed, Profile::Fsdp}) {
    const auto refused = predictMemory(withPolicy(
        profile, {RecomputeKind::Layers, 1, model::kCoreAttention | model::kOutputHead}));
    ASSERT_FALSE(refused.ok()) << toString(profile);
    EXPECT_EQ(refused.error().kind, ErrorKind::BadInput);
    EXPECT_NE(refused.error().message.find("head module"), std::string::npos)
        << refused.error().message;
  }
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
  const std::uint64_t dynamic =
      p.breakdown.activations + p.breakdown.logits + p.breakdown.recompute + p.breakdown.workspace;
  EXPECT_GT(p.breakdown.allocatorCache, dynamic / 20);
  EXPECT_EQ(p.allocatedBytes + p.breakdown.allocatorCache, p.totalBytes);
}

}  // namespace
}  // namespace tb::memory
