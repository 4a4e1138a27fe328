// The torchtitan profile's own terms on shapes counted by hand, and the
// frameworks' names for recompute policies. The check against measured H100
// peaks is tests/integration/cli_memory_measured_test.cpp.
#include <gtest/gtest.h>

#include "memory_test_shapes.hpp"
#include "tb/memory/memory_options.hpp"
#include "tb/memory/planner.hpp"

namespace tb::memory {
namespace {

using test::countableModel;
using test::predict;

// countableModel: h 8, kv 4 (1 of 2 heads), f 16, vocab 16, 4 blocks, 8 tokens.
PredictionInput torchtitanInput(RecomputePolicy policy) {
  PredictionInput input;
  input.model = countableModel();
  input.profile = Profile::Torchtitan;
  input.parallel.dtype = DType::Bf16;
  input.parallel.flashAttention = true;
  input.parallel.dp = 2;
  input.parallel.zero = 3;
  input.recompute = policy;
  input.frameworkVersion = FrameworkVersion::Dec2024;
  return input;
}

TEST(MemoryTorchtitan, FrameworkNamesMapOntoThePredictorsTerms) {
  EXPECT_EQ(*parseRecompute("torchtitan:op"), (RecomputePolicy{RecomputeKind::Op, 0}));
  EXPECT_EQ(*parseRecompute("torchtitan:full"), (RecomputePolicy{RecomputeKind::Full, 0}));
  EXPECT_EQ(*parseRecompute("torchtitan:every:2"), (RecomputePolicy{RecomputeKind::Every, 2}));
  EXPECT_EQ(*parseRecompute("torchtitan:selective:3"), (RecomputePolicy{RecomputeKind::Every, 3}));
  // count % N == 0 for every block: N = 1, and torchtitan's "0", are full.
  EXPECT_EQ(*parseRecompute("torchtitan:every:1"), (RecomputePolicy{RecomputeKind::Full, 0}));
  EXPECT_EQ(*parseRecompute("torchtitan:every:0"), (RecomputePolicy{RecomputeKind::Full, 0}));
  EXPECT_EQ(*parseRecompute("megatron:selective"), (RecomputePolicy{RecomputeKind::Selective, 0}));
  EXPECT_EQ(*parseRecompute("megatron:selective:core_attn,mlp_act"),
            (RecomputePolicy{RecomputeKind::Selective, 0,
                             model::kCoreAttention | model::kMlpActivation}));
  EXPECT_EQ(*parseRecompute("megatron:full:uniform:4"),
            (RecomputePolicy{RecomputeKind::Uniform, 4}));
  EXPECT_EQ(*parseRecompute("megatron:full:uniform:1"), (RecomputePolicy{RecomputeKind::Full, 0}));
  EXPECT_EQ(*parseRecompute("megatron:full:block:3"), (RecomputePolicy{RecomputeKind::Layers, 3}));
  EXPECT_EQ(*parseRecompute("deepspeed:checkpointing"), (RecomputePolicy{RecomputeKind::Full, 0}));
  EXPECT_EQ(*parseRecompute("hf:gradient_checkpointing"),
            (RecomputePolicy{RecomputeKind::Full, 0}));
  EXPECT_EQ(toString(*parseRecompute("torchtitan:every:2")), "every:2");
  EXPECT_EQ(*parseRecompute(toString(*parseRecompute("megatron:full:uniform:4"))),
            (RecomputePolicy{RecomputeKind::Uniform, 4}));
}

TEST(MemoryTorchtitan, AFrameworksUnknownNameIsRefusedWithItsNames) {
  for (const char* bad : {"torchtitan:sometimes", "megatron:full", "megatron:selective:head",
                          "deepspeed:full", "hf:yes", "torchtitan:every:x"}) {
    auto policy = parseRecompute(bad);
    ASSERT_FALSE(policy.ok()) << bad;
    EXPECT_EQ(policy.error().kind, ErrorKind::BadInput);
    EXPECT_NE(policy.error().message.find(std::string("'") + bad + "'"), std::string::npos)
        << policy.error().message;
  }
  EXPECT_NE(parseRecompute("torchtitan:x").error().message.find("op"), std::string::npos);
}

TEST(MemoryTorchtitan, TheMappingSaysWhatANameMeans) {
  EXPECT_EQ(recomputeMapping("full"), "");  // the predictor's own spelling
  const std::string op = recomputeMapping("torchtitan:op");
  EXPECT_EQ(op.rfind("torchtitan:op = op: ", 0), 0u) << op;
  EXPECT_NE(op.find("wq, wv, w1 and w2"), std::string::npos) << op;
  EXPECT_NE(recomputeMapping("megatron:full:uniform:4").find("chunk of 4 blocks"),
            std::string::npos);
  EXPECT_EQ(
      recomputeMapping("hf:gradient_checkpointing").rfind("hf:gradient_checkpointing = full", 0),
      0u);
}

// A vocabulary of 256 and 512 tokens, so that the head's backward (all four
// blocks' activations beside the loss) is the peak.
PredictionInput headPeakInput(RecomputePolicy policy) {
  PredictionInput input = torchtitanInput(policy);
  input.model.vocab = 256;
  input.model.batch = 128;
  return input;
}

TEST(MemoryTorchtitan, PerOpCheckpointingKeepsEveryOtherProductAndAttention) {
  // Per token: input 8·2, wq 8·2, wv 4·2, w1 16·2, w2 8·2, SDPA output 8·2,
  // log-sum-exp 2 heads·4 = 112 B per block; the final norm's three outputs
  // and the token id, 3·8·2 + 8 = 56 B.
  const MemoryPrediction none = predict(headPeakInput({RecomputeKind::None, 0}));
  const MemoryPrediction op = predict(headPeakInput({RecomputeKind::Op, 0}));
  const MemoryPrediction full = predict(headPeakInput({RecomputeKind::Full, 0}));
  for (const MemoryPrediction* p : {&none, &op, &full}) {
    EXPECT_EQ(p->peakPhase, "head backward");
  }
  EXPECT_EQ(op.breakdown.activations, 512u * (4 * 112 + 56));
  EXPECT_EQ(full.breakdown.activations, 512u * (4 * 16 + 56));  // each block's input
  EXPECT_GT(none.breakdown.activations, op.breakdown.activations);
}

TEST(MemoryTorchtitan, Float8KeepsTheScalesInputsInsteadOfTheProducts) {
  // Per token: input 16, both norms' outputs 32, attention's output 16, the
  // SwiGLU product 32, SDPA output 16, log-sum-exp 8 = 120 B.
  PredictionInput input = headPeakInput({RecomputeKind::Op, 0});
  input.float8 = true;
  input.compiledStep = true;
  EXPECT_EQ(predict(input).breakdown.activations, 512u * (4 * 120 + 56));
}

TEST(MemoryTorchtitan, TheDec2024LossKeepsTwelveBytesAnEntryAndTheCompiledOneEight) {
  PredictionInput input = headPeakInput({RecomputeKind::Full, 0});
  EXPECT_EQ(predict(input).breakdown.logits, 512u * 256 * 12);
  input.frameworkVersion = FrameworkVersion::Current;
  EXPECT_EQ(predict(input).breakdown.logits, 512u * 256 * 8);
  // Loss parallel over TP 2: 128 vocabulary entries a rank at 16 B, and the
  // all-gathered final-norm output (512 tokens · 8 · 2 B).
  input.frameworkVersion = FrameworkVersion::Dec2024;
  input.parallel.tp = 2;
  EXPECT_EQ(predict(input).breakdown.logits, 512u * 128 * 16 + 512 * 8 * 2);
}

TEST(MemoryTorchtitan, ContextParallelSplitsTokensAndShardsOverDpTimesCp) {
  PredictionInput input = torchtitanInput({RecomputeKind::Full, 0});
  input.parallel.dp = 4;
  const MemoryPrediction dp4 = predict(input);
  input.parallel.dp = 2;
  input.parallel.cp = 2;
  input.model.seq *= 2;  // each rank still holds 8 tokens
  const MemoryPrediction cp2 = predict(input);
  EXPECT_EQ(cp2.breakdown.optimizer, dp4.breakdown.optimizer);
  EXPECT_EQ(cp2.breakdown.activations, dp4.breakdown.activations);
  EXPECT_EQ(cp2.breakdown.logits, dp4.breakdown.logits);
  input.model.seq += 1;
  ASSERT_FALSE(predictMemory(input).ok());
  EXPECT_NE(predictMemory(input).error().message.find("--cp"), std::string::npos);
}

TEST(MemoryTorchtitan, ReservedIsAllocatedPlusTheAllocatorsCache) {
  PredictionInput input = headPeakInput({RecomputeKind::Full, 0});
  input.compiledStep = true;
  const MemoryPrediction p = predict(input);
  ASSERT_EQ(p.peakPhase, "head backward");
  EXPECT_EQ(p.allocatedBytes + p.breakdown.allocatorCache, p.totalBytes);
  // At the head's backward no gradient is born yet, so the previous step's
  // (4 B per sharded parameter) are all still cached, and the slack is on
  // top of everything.
  const double sharded = static_cast<double>(model::parameterCount(input.model)) / 2;
  const double expected = (static_cast<double>(p.allocatedBytes) + 4 * sharded) *
                              (1 + allocatorSlack(Profile::Torchtitan, true)) -
                          static_cast<double>(p.allocatedBytes);
  EXPECT_NEAR(static_cast<double>(p.breakdown.allocatorCache), expected, 1.0);
  EXPECT_GT(allocatorSlack(Profile::Torchtitan, false), allocatorSlack(Profile::Torchtitan, true));
  EXPECT_EQ(allocatorSlack(Profile::Engine, false), 0.0);
}

TEST(MemoryTorchtitan, AsyncTpLeavesHalfTheCollectiveBuffersCached) {
  PredictionInput input = torchtitanInput({RecomputeKind::Full, 0});
  input.parallel.tp = 2;
  input.parallel.sequenceParallel = true;
  const MemoryPrediction sync = predict(input);
  input.parallel.asyncTp = true;
  const MemoryPrediction async = predict(input);
  EXPECT_EQ(sync.allocatedBytes, async.allocatedBytes);
  // Two whole [8 tokens, 8] bf16 tensors fewer, times (1 + slack).
  EXPECT_NEAR(static_cast<double>(sync.breakdown.allocatorCache - async.breakdown.allocatorCache),
              2.0 * 8 * 8 * 2 * (1 + allocatorSlack(Profile::Torchtitan, false)), 1.0);
}

TEST(MemoryTorchtitan, PipelineStagesKeepTheirWeightsGatheredAndAccumulateFp32Gradients) {
  PredictionInput input = torchtitanInput({RecomputeKind::Full, 0});
  input.parallel.pp = 2;
  const MemoryPrediction p = predict(input);
  // First stage: 2 blocks (2 · 592 parameters) and the embedding (128): its
  // bf16 parameters stay gathered beside the fp32 shard, and a later
  // micro-batch's backward finds its unsharded fp32 gradients accumulated.
  const double stage = 2.0 * 592 + 128;
  EXPECT_EQ(p.peakPhase.rfind("first stage, layer", 0), 0u) << p.peakPhase;
  EXPECT_NE(p.peakPhase.find("later micro-batches"), std::string::npos) << p.peakPhase;
  EXPECT_EQ(p.breakdown.weights, static_cast<std::uint64_t>(4 * stage / 2 + 2 * stage));
  EXPECT_GE(p.breakdown.gradients, static_cast<std::uint64_t>(4 * stage));
}

TEST(MemoryTorchtitan, EveryNthBlockAndUniformChunksSitBetweenNoneAndFull) {
  const auto peak = [](RecomputePolicy policy) {
    return predict(torchtitanInput(policy)).breakdown.activations;
  };
  const std::uint64_t none = peak({RecomputeKind::None, 0});
  const std::uint64_t every2 = peak({RecomputeKind::Every, 2});
  const std::uint64_t full = peak({RecomputeKind::Full, 0});
  EXPECT_LT(every2, none);
  EXPECT_GT(every2, full);
  // Uniform chunks of 2 keep two block inputs instead of four.
  EXPECT_LT(peak({RecomputeKind::Uniform, 2}), full);
}

TEST(MemoryTorchtitan, TheEngineRefusesTheFrameworksPoliciesAndOtherProfilesFloat8) {
  PredictionInput input;
  input.model = countableModel();
  input.recompute = {RecomputeKind::Op, 0};
  ASSERT_FALSE(predictMemory(input).ok());
  EXPECT_NE(predictMemory(input).error().message.find("op"), std::string::npos);
  PredictionInput fsdp = torchtitanInput({RecomputeKind::Full, 0});
  fsdp.profile = Profile::Fsdp;
  fsdp.float8 = true;
  ASSERT_FALSE(predictMemory(fsdp).ok());
  EXPECT_NE(predictMemory(fsdp).error().message.find("--float8"), std::string::npos);
}

}  // namespace
}  // namespace tb::memory

namespace tb::memory {
namespace {

TEST(MemoryTorchtitan, APlanIsSpelledAsItsFrameworkTakesIt) {
  EXPECT_EQ(frameworkSpelling(Profile::Torchtitan, {RecomputeKind::Every, 2}),
            "[activation_checkpoint] mode = \"selective\", selective_ac_option = \"2\"");
  EXPECT_EQ(frameworkSpelling(Profile::Torchtitan, {RecomputeKind::Op, 0}),
            "[activation_checkpoint] mode = \"selective\", selective_ac_option = \"op\"");
  EXPECT_EQ(frameworkSpelling(Profile::Megatron, {RecomputeKind::Layers, 3}),
            "--recompute-granularity full --recompute-method block --recompute-num-layers 3");
  EXPECT_EQ(frameworkSpelling(Profile::Megatron, {RecomputeKind::Selective, 0}),
            "--recompute-granularity selective");
  // No way to say these in that framework.
  EXPECT_EQ(frameworkSpelling(Profile::Torchtitan, {RecomputeKind::Layers, 3}), "");
  EXPECT_EQ(frameworkSpelling(Profile::Megatron, {RecomputeKind::Layers, 3, model::kNorms}), "");
  EXPECT_EQ(frameworkSpelling(Profile::Engine, {RecomputeKind::Full, 0}), "");
  // Every spelling names a policy the names parser maps back to the same one.
  EXPECT_EQ(*parseRecompute("megatron:full:block:3"), (RecomputePolicy{RecomputeKind::Layers, 3}));
}

TEST(MemoryTorchtitan, ThePlannerOffersTorchtitansOwnPolicies) {
  // Llama 3.1 8B on 8 GPUs, 2 x 8192 tokens: keeping everything does not fit
  // an H100, full recomputation does; the plan is the cheapest in between,
  // and a torchtitan job can be told every candidate it may choose.
  PredictionInput input;
  input.model = test::preset("llama3-8b");
  input.model.seq = 8192;
  input.model.batch = 2;
  input.profile = Profile::Torchtitan;
  input.parallel.dtype = DType::Bf16;
  input.parallel.flashAttention = true;
  input.parallel.dp = 8;
  input.parallel.zero = 3;
  input.compiledStep = true;
  auto plan = planRecompute(input, 80ull << 30);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_TRUE(plan->fits);
  EXPECT_TRUE(plan->policy.kind == RecomputeKind::Op || plan->policy.kind == RecomputeKind::Every)
      << toString(plan->policy);
  EXPECT_FALSE(frameworkSpelling(Profile::Torchtitan, plan->policy).empty());
  EXPECT_LT(plan->timeOverheadRatio, relativeStepTime([&] {
                                       PredictionInput full = input;
                                       full.recompute = {RecomputeKind::Full, 0};
                                       return full;
                                     }()) -
                                         1.0);
}

}  // namespace
}  // namespace tb::memory
