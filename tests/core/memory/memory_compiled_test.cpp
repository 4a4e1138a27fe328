// The engine profile with the compiled step (--compile on), on the countable
// shapes: what the fused kernels keep per block, the head's one chunk of
// logits, the flat gradient buffers, and where the compiled step does not
// apply (bf16 falls back to the plain ops; cluster profiles are refused).
// The sweep over real runs checks the same terms against the allocator.
#include <gtest/gtest.h>

#include "memory_test_shapes.hpp"

namespace tb::memory {
namespace {

using test::countableModel;
using test::headHeavyModel;
using test::predict;

PredictionInput compiledInput(const model::ModelConfig& m, RecomputePolicy policy = {}) {
  PredictionInput input;
  input.model = m;
  input.recompute = policy;
  input.compiledStep = true;
  return input;
}

TEST(MemoryCompiled, BlockKeepsInputsAndRowStatisticsOnly) {
  // 8 tokens, dim 8, ffn 16, kv width 4, 2 heads: x, n1, q, out, h, n2 (48),
  // k and v (8), w1·x, w3·x and the gated product (48), two inverse RMS and
  // two log-sum-exps: 8·108·4. Selective drops the log-sum-exps only.
  const MemoryPrediction p = predict(compiledInput(countableModel()));
  EXPECT_EQ(p.perLayer.kept, 3456u);
  EXPECT_EQ(p.perLayer.selective, 3392u);
  EXPECT_EQ(p.perLayer.checkpoint, 256u);
  // The plain block's scores, mask, repeated K/V and norm temporaries are gone.
  PredictionInput plain = compiledInput(countableModel());
  plain.compiledStep = false;
  EXPECT_EQ(predict(plain).perLayer.kept, 5456u);
}

TEST(MemoryCompiled, HeadBackwardHoldsOneChunkAndTheFlatGradients) {
  // Head backward: weights 10,528, flat gradients 10,528, moments 21,056,
  // four blocks 13,824 and the final norm 8·(17·4 + 8) = 608, logits
  // (8·16 chunk + 8 log-sum-exps + 8·8 hidden gradient + 16·8 output-weight
  // gradient)·4 = 1,312, overhead 144: 58,000, above layer 3's backward.
  const MemoryPrediction p = predict(compiledInput(countableModel()));
  EXPECT_EQ(p.peakPhase, "head backward");
  EXPECT_EQ(p.breakdown.gradients, 10528u);
  EXPECT_EQ(p.breakdown.activations, 14432u);
  EXPECT_EQ(p.breakdown.logits, 1312u);
  EXPECT_EQ(p.totalBytes, 58000u);
}

TEST(MemoryCompiled, LogitsAreOneChunkWhateverTheBatch) {
  // 512 tokens over a 4,000-token vocabulary: the plain head's 12 bytes per
  // logit (24.6 MB) against one 256-row chunk, 512 log-sum-exps and the
  // 512 x 16 hidden gradient and the 4,000 x 16 output-weight gradient:
  // (1,024,000 + 512 + 8,192 + 64,000)·4 = 4,386,816.
  model::ModelConfig m = headHeavyModel();
  m.vocab = 4000;
  m.dim = 16;
  m.ffn = 32;
  m.seq = 64;
  m.batch = 8;
  PredictionInput plain;
  plain.model = m;
  const MemoryPrediction off = predict(plain);
  const MemoryPrediction on = predict(compiledInput(m));
  EXPECT_EQ(off.peakPhase, "head backward");
  EXPECT_EQ(off.breakdown.logits, 512u * 4000u * 12u);
  EXPECT_EQ(on.peakPhase, "head backward");
  EXPECT_EQ(on.breakdown.logits, 4386816u);
  EXPECT_LT(on.totalBytes, off.totalBytes);
}

TEST(MemoryCompiled, Bf16FallsBackToThePlainTerms) {
  PredictionInput on = compiledInput(countableModel());
  on.parallel.dtype = DType::Bf16;
  PredictionInput off = on;
  off.compiledStep = false;
  EXPECT_EQ(predict(on).totalBytes, predict(off).totalBytes);
  EXPECT_EQ(predict(on).perLayer.kept, predict(off).perLayer.kept);
}

TEST(MemoryCompiled, OptimizerStepHasNoTemporaries) {
  // Head-heavy: weights and flat gradients 66,400 each, moments 132,800 with
  // no sqrt/div temporaries; the head's backward (logits (2·1000 + 2 + 16 +
  // 1000·8)·4 = 40,072, blocks 864, final norm 152) peaks above the optimizer step.
  const MemoryPrediction p = predict(compiledInput(headHeavyModel()));
  EXPECT_EQ(p.peakPhase, "head backward");
  EXPECT_EQ(p.breakdown.optimizer, 132800u);
  EXPECT_EQ(p.breakdown.logits, 40072u);
  EXPECT_EQ(p.totalBytes, 306744u);
}

TEST(MemoryCompiled, ClusterProfilesRefuseTheEnginesCompiledStep) {
  PredictionInput input = compiledInput(countableModel());
  input.profile = Profile::Megatron;
  input.parallel.dtype = DType::Bf16;
  const auto prediction = predictMemory(input);
  ASSERT_FALSE(prediction.ok());
  EXPECT_EQ(prediction.error().kind, ErrorKind::BadInput);
  EXPECT_NE(prediction.error().message.find("--compile"), std::string::npos);
  EXPECT_NE(prediction.error().message.find("megatron"), std::string::npos);
}

}  // namespace
}  // namespace tb::memory
