// Each term on shapes small enough to count by hand. The engine counts follow
// what autograd saves in core/engine's block (docs/MEMORY.md lists them):
// per token 12·dim + 4·ffn + heads·seq + 2 floats, plus a seq² bool mask;
// the sweep over real runs (tests/core/engine/model/recompute_memory_test.cpp)
// checks them against the tracking allocator.
#include <gtest/gtest.h>

#include "memory_test_shapes.hpp"

namespace tb::memory {
namespace {

using test::countableModel;
using test::headHeavyModel;
using test::predict;

PredictionInput engineInput(const model::ModelConfig& m, RecomputePolicy policy = {}) {
  PredictionInput input;
  input.model = m;
  input.recompute = policy;
  return input;
}

TEST(MemoryTerms, EngineBlockActivationsMatchAHandCount) {
  // 8 tokens: kept 8·(96 + 64 + 8 + 2)·4 + 16 mask bytes; selective keeps the
  // roped q (8), k and v (4 each) instead of the core: 8·(80 + 8 + 64 + 2)·4;
  // full keeps the 8-wide input.
  const MemoryPrediction p = predict(engineInput(countableModel()));
  EXPECT_EQ(p.perLayer.kept, 5456u);
  EXPECT_EQ(p.perLayer.selective, 4928u);
  EXPECT_EQ(p.perLayer.checkpoint, 256u);
}

TEST(MemoryTerms, EngineOptimizerStepIsThePeakOfAHeadHeavyModel) {
  // 16,600 params: fp32 weights and grads 66,400 each; moments 132,800 plus
  // the sqrt/div temporaries of the 8,000-element embedding (64,000); token
  // rows 24 and RoPE tables 32 bytes.
  const MemoryPrediction p = predict(engineInput(headHeavyModel()));
  EXPECT_EQ(p.params, 16600);
  EXPECT_EQ(p.peakPhase, "optimizer step");
  EXPECT_EQ(p.breakdown.weights, 66400u);
  EXPECT_EQ(p.breakdown.gradients, 66400u);
  EXPECT_EQ(p.breakdown.optimizer, 196800u);
  EXPECT_EQ(p.breakdown.activations, 0u);
  EXPECT_EQ(p.breakdown.overhead, 56u);
  EXPECT_EQ(p.totalBytes, 329656u);
}

TEST(MemoryTerms, EngineLastBlockBackwardIsThePeakWhenActivationsDominate) {
  // 2,632 params. At the last block's backward: weights 10,528, moments
  // 21,056, gradients of the head (136 params) and one block (592) 2,912,
  // four blocks kept 21,824, workspace 8·(8 + 2·16)·4 = 1,280, overhead 144:
  // 57,744, above the head's backward (no gradients yet; the blocks, the
  // final norm's 1,088 and logits 8·16·12 = 1,536: 56,176).
  const MemoryPrediction p = predict(engineInput(countableModel()));
  EXPECT_EQ(p.peakPhase, "layer 3 backward");
  EXPECT_EQ(p.breakdown.gradients, 2912u);
  EXPECT_EQ(p.breakdown.activations, 21824u);
  EXPECT_EQ(p.breakdown.workspace, 1280u);
  EXPECT_EQ(p.breakdown.logits, 0u);
  EXPECT_EQ(p.totalBytes, 57744u);
}

TEST(MemoryTerms, EngineFullRecomputePeaksAtTheFirstBlocksBackward) {
  // Checkpoints are 256 bytes a block. At block 0's backward every gradient
  // but the embedding's is born (4·(136 + 4·592) = 10,016), block 0 is rebuilt
  // (its kept set less its input: 5,200) and differentiated (1,280): 48,480,
  // above the optimizer step (10,528 + 10,528 + 21,056 + 1,024 + 144).
  const MemoryPrediction p = predict(engineInput(countableModel(), {RecomputeKind::Full, 0}));
  EXPECT_EQ(p.peakPhase, "layer 0 backward");
  EXPECT_EQ(p.breakdown.activations, 256u);
  EXPECT_EQ(p.breakdown.recompute, 5200u);
  EXPECT_EQ(p.breakdown.gradients, 10016u);
  EXPECT_EQ(p.totalBytes, 48480u);
}

TEST(MemoryTerms, LogitsTermIsLargeForA128kVocabulary) {
  PredictionInput input;
  input.model = test::preset("llama3-8b");
  input.model.seq = 8192;
  input.profile = Profile::Fsdp;
  input.parallel.dtype = DType::Bf16;
  input.parallel.flashAttention = true;
  input.parallel.dp = 8;
  input.parallel.zero = 3;
  input.recompute = {RecomputeKind::Full, 0};
  // 8192 tokens x 128,256 entries x 14 bytes (bf16 logits, fp32 copy, saved
  // log-softmax, fp32 gradient) = 13.7 GiB, more than all checkpoints.
  auto prediction = predictMemory(input);
  ASSERT_TRUE(prediction.ok());
  const MemoryPrediction& p = *prediction;
  EXPECT_EQ(p.peakPhase, "head backward");
  EXPECT_EQ(p.breakdown.logits, 8192ull * 128256ull * 14ull);
  EXPECT_GT(p.breakdown.logits, p.breakdown.activations);
}

TEST(MemoryTerms, ClusterLlamaBlockMatchesThePublishedRecount) {
  // Korthikanti et al.'s count redone for the Llama block (docs/MEMORY.md,
  // "Activations per block"): it keeps sbh(12 + 4·kv/a) + 8sbf bytes without
  // the scores (selective), and 2sbh under full recompute.
  PredictionInput input = engineInput(countableModel());
  input.profile = Profile::Fsdp;
  input.parallel.dtype = DType::Bf16;
  const MemoryPrediction p = predict(input);
  const std::uint64_t sbh = 8 * 8;
  EXPECT_EQ(p.perLayer.selective, sbh * (12 + 4 * 1 / 2) + 8 * 8 * 16);
  EXPECT_EQ(p.perLayer.checkpoint, 2 * sbh);
  // Without flash attention the bf16 softmax (heads·seq per token) is kept too.
  EXPECT_EQ(p.perLayer.kept, p.perLayer.selective + 8 * 2 * 4 * 2);
}

TEST(MemoryTerms, FlashAttentionKeepsOnlyTheLogSumExp) {
  PredictionInput input = engineInput(countableModel());
  input.profile = Profile::Megatron;
  input.parallel.dtype = DType::Bf16;
  input.parallel.flashAttention = true;
  const MemoryPrediction p = predict(input);
  // Megatron's fused SwiGLU keeps 3·ffn: 8·(4·8 + 2·8 + 2·4 + 3·16)·2 + 8·2·4.
  EXPECT_EQ(p.perLayer.kept, 8u * (32 + 16 + 8 + 48) * 2 + 8 * 2 * 4);
  EXPECT_EQ(p.perLayer.selective, p.perLayer.kept);
}

TEST(MemoryTerms, PublishedArchitecturesHaveExactParameterCounts) {
  const std::pair<const char*, std::int64_t> cases[] = {{"llama3-8b", 8'030'261'248},
                                                        {"llama3-70b", 70'553'706'496},
                                                        {"llama2-7b", 6'738'415'616},
                                                        {"qwen2.5-7b", 7'615'616'512},
                                                        {"mistral-7b", 7'241'732'096}};
  for (const auto& [name, params] : cases) {
    PredictionInput input;
    input.model = test::preset(name);
    input.profile = Profile::Megatron;
    input.parallel.dtype = DType::Bf16;
    const MemoryPrediction p = predict(input);
    EXPECT_EQ(p.params, params) << name;
    EXPECT_EQ(p.paramsPerRank, params) << name;
  }
}

TEST(MemoryTerms, BadShapesAndLayoutsAreBadInputNamingTheValue) {
  PredictionInput input = engineInput(countableModel());
  input.parallel.tp = 3;
  auto prediction = predictMemory(input);
  ASSERT_FALSE(prediction.ok());
  EXPECT_EQ(prediction.error().kind, ErrorKind::BadInput);
  EXPECT_NE(prediction.error().message.find("--tp: 3"), std::string::npos);

  input = engineInput(countableModel(), {RecomputeKind::Layers, 5});
  prediction = predictMemory(input);
  ASSERT_FALSE(prediction.ok());
  EXPECT_NE(prediction.error().message.find("layers:5"), std::string::npos);

  input = engineInput(countableModel());
  input.model.heads = 3;
  EXPECT_FALSE(predictMemory(input).ok());
}

}  // namespace
}  // namespace tb::memory
