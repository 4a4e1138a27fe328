// The assembled model: parameter layout against the pure count, the initial
// distribution of the definition, shapes, causality of the whole stack, and a
// finite-difference check of the full loss through every parameter.
#include <gtest/gtest.h>

#include "model/decoder.hpp"
#include "gradient_check.hpp"

namespace {

using tb::engine::Decoder;
using tb::engine::DecoderWeights;
using tb::engine::ModelConfig;
using tb::engine::NamedTensor;

ModelConfig microConfig(bool qkvBias = false) {
  ModelConfig config;
  config.name = "micro";
  config.vocab = 7;
  config.dim = 8;
  config.layers = 2;
  config.heads = 4;
  config.kvHeads = 2;
  config.ffn = 6;
  config.seq = 4;
  config.batch = 2;
  config.qkvBias = qkvBias;
  return config;
}

std::int64_t countElements(const std::vector<NamedTensor>& named) {
  std::int64_t total = 0;
  for (const auto& entry : named) total += entry.tensor.numel();
  return total;
}

// Rebuilds the weights from a flat list in namedParameters order, so a
// gradient check can perturb each parameter tensor as an input.
DecoderWeights fromList(const ModelConfig& config, const std::vector<at::Tensor>& list) {
  DecoderWeights weights;
  std::size_t next = 0;
  weights.embedding = list[next++];
  for (std::int64_t layer = 0; layer < config.layers; ++layer) {
    tb::engine::BlockWeights b;
    b.attentionNorm = list[next++];
    b.wq = list[next++];
    b.wk = list[next++];
    b.wv = list[next++];
    if (config.qkvBias) {
      b.bq = list[next++];
      b.bk = list[next++];
      b.bv = list[next++];
    }
    b.wo = list[next++];
    b.ffnNorm = list[next++];
    b.w1 = list[next++];
    b.w2 = list[next++];
    b.w3 = list[next++];
    weights.blocks.push_back(b);
  }
  weights.finalNorm = list[next++];
  weights.output = list[next++];
  return weights;
}

TEST(Decoder, NamedParametersCoverExactlyTheParameterCount) {
  for (const bool bias : {false, true}) {
    const ModelConfig config = microConfig(bias);
    const auto weights = tb::engine::initialiseWeights(config, 1, c10::Device(c10::kCPU));
    EXPECT_EQ(countElements(tb::engine::namedParameters(weights)),
              tb::model::parameterCount(config));
  }
  ModelConfig tiny = *tb::model::findPreset("tiny");
  const auto weights = tb::engine::initialiseWeights(tiny, 1, c10::Device(c10::kCPU));
  const auto named = tb::engine::namedParameters(weights);
  EXPECT_EQ(countElements(named), tb::model::parameterCount(tiny));
  EXPECT_EQ(named[2].name, "layers.0.attention.wq");
  EXPECT_EQ(named.back().name, "output");
}

TEST(Decoder, InitialisationFollowsTheDefinitionAndTheSeed) {
  const ModelConfig config = *tb::model::findPreset("tiny");
  const auto weights = tb::engine::initialiseWeights(config, 42, c10::Device(c10::kCPU));
  EXPECT_NEAR(weights.embedding.std().item<double>(), 0.02, 0.001);
  EXPECT_NEAR(weights.embedding.mean().item<double>(), 0.0, 0.001);
  EXPECT_NEAR(weights.blocks[1].w2.std().item<double>(), 0.02, 0.001);
  EXPECT_TRUE(at::equal(weights.blocks[0].attentionNorm, at::ones({64})));
  EXPECT_TRUE(at::equal(weights.finalNorm, at::ones({64})));
  EXPECT_TRUE(weights.output.requires_grad());
  const auto same = tb::engine::initialiseWeights(config, 42, c10::Device(c10::kCPU));
  const auto other = tb::engine::initialiseWeights(config, 43, c10::Device(c10::kCPU));
  EXPECT_TRUE(at::equal(weights.output, same.output));
  EXPECT_FALSE(at::equal(weights.output, other.output));
}

TEST(Decoder, LogitsHaveOneRowPerTokenAndIgnoreLaterTokens) {
  const ModelConfig config = microConfig();
  const Decoder decoder(config, tb::engine::initialiseWeights(config, 3, c10::Device(c10::kCPU)),
                        tb::engine::referenceOps(), at::kFloat);
  at::NoGradGuard noGrad;
  at::Tensor tokens =
      at::tensor(std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 0, 1}, at::kLong).reshape({2, 4});
  const at::Tensor before = decoder.logits(tokens);
  ASSERT_EQ(before.sizes(), (std::vector<std::int64_t>{2, 4, 7}));
  tokens[0][3] = 0;
  const at::Tensor after = decoder.logits(tokens);
  EXPECT_TRUE(at::allclose(before.narrow(1, 0, 3), after.narrow(1, 0, 3)));
  EXPECT_FALSE(at::allclose(before[0][3], after[0][3]));
  EXPECT_TRUE(at::allclose(before[1], after[1]));
}

TEST(Decoder, InitialLossIsCloseToLogVocab) {
  const ModelConfig config = *tb::model::findPreset("tiny");
  const Decoder decoder(config, tb::engine::initialiseWeights(config, 5, c10::Device(c10::kCPU)),
                        tb::engine::referenceOps(), at::kFloat);
  at::manual_seed(5);
  const at::Tensor rows = at::randint(config.vocab, {config.batch, config.seq + 1}, at::kLong);
  EXPECT_NEAR(decoder.loss(rows).item<double>(), std::log(512.0), 0.1);
}

TEST(Decoder, Bf16ComputeKeepsFloat32MasterWeightsAndMatchesFloat32Loss) {
  // The GPU path (bf16 matrix products over float32 weights), run on the CPU.
  const ModelConfig config = *tb::model::findPreset("tiny");
  const auto weights = tb::engine::initialiseWeights(config, 6, c10::Device(c10::kCPU));
  const Decoder exact(config, weights, tb::engine::referenceOps(), at::kFloat);
  const Decoder mixed(config, weights, tb::engine::referenceOps(), at::kBFloat16);
  at::manual_seed(6);
  const at::Tensor rows = at::randint(config.vocab, {2, config.seq + 1}, at::kLong);
  const at::Tensor mixedLoss = mixed.loss(rows);
  EXPECT_EQ(mixedLoss.scalar_type(), at::kFloat);
  EXPECT_NEAR(mixedLoss.item<double>(), exact.loss(rows).item<double>(), 0.02);
  mixedLoss.backward();
  EXPECT_EQ(weights.blocks[0].wq.grad().scalar_type(), at::kFloat);
  EXPECT_GT(weights.blocks[0].wq.grad().abs().sum().item<double>(), 0.0);
}

void expectFullGradientMatches(bool qkvBias) {
  const ModelConfig config = microConfig(qkvBias);
  const auto initial = tb::engine::initialiseWeights(config, 9, c10::Device(c10::kCPU));
  std::vector<at::Tensor> inputs;
  at::manual_seed(9);
  for (const auto& entry : tb::engine::namedParameters(initial)) {
    // Larger than the 0.02 init (and norms/biases off their start values) so
    // every path carries a gradient well above the finite-difference noise.
    const at::Tensor offset = 0.3 * at::randn(entry.tensor.sizes(), at::kDouble);
    inputs.push_back(entry.tensor.detach().to(at::kDouble) + offset);
  }
  const std::vector<std::int64_t> tokens{1, 5, 2, 6, 3, 0, 4, 4, 2, 1};
  const at::Tensor rows = at::tensor(tokens, at::kLong).reshape({2, 5});
  inputs.push_back(rows);
  const auto check = tb::engine::testing::checkGradients(
      [&config](const std::vector<at::Tensor>& in) {
        const std::vector<at::Tensor> parameters(in.begin(), in.end() - 1);
        const Decoder decoder(config, fromList(config, parameters), tb::engine::referenceOps(),
                              at::kDouble);
        return decoder.loss(in.back());
      },
      inputs);
  EXPECT_EQ(static_cast<std::int64_t>(check.elementsChecked), tb::model::parameterCount(config));
  EXPECT_LT(check.worstError, 1e-6) << check.where;
}

TEST(Decoder, LossGradientMatchesFiniteDifferencesForEveryParameter) {
  expectFullGradientMatches(false);
}

TEST(Decoder, LossGradientWithQkvBiasMatchesFiniteDifferences) { expectFullGradientMatches(true); }

}  // namespace
