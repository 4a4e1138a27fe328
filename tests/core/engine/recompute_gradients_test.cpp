// Recomputation must change when activations exist, never what is computed:
// every policy's gradients are compared with no recomputation's on random
// weights and tokens, in float32, at a relative error of at most 1e-6 per
// parameter tensor (the bound). The primitive is also checked alone,
// on a segment whose weights are inputs, and under no-grad.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include <string>
#include <vector>

#include "decoder.hpp"
#include "recompute.hpp"

namespace {

using tb::engine::BlockRecompute;
using tb::engine::Decoder;
using tb::engine::ModelConfig;
using tb::engine::RecomputeMode;
using tb::engine::RecomputePolicy;

constexpr double kRelativeTolerance = 1e-6;

ModelConfig gradientConfig(bool qkvBias) {
  ModelConfig config;
  config.name = "recompute-check";
  config.vocab = 97;
  config.dim = 48;
  config.layers = 3;
  config.heads = 6;
  config.kvHeads = 2;
  config.ffn = 128;
  config.seq = 24;
  config.batch = 3;
  config.qkvBias = qkvBias;
  return config;
}

// Gradients of the loss for every parameter, in namedParameters order.
std::vector<at::Tensor> gradients(const ModelConfig& config, const RecomputePolicy& policy,
                                  const at::Tensor& rows) {
  Decoder decoder(config, tb::engine::initialiseWeights(config, 99, c10::Device(c10::kCPU)),
                  tb::engine::referenceOps(), at::kFloat);
  decoder.setRecompute(tb::engine::recomputeLayout(policy, config.layers));
  if (config.qkvBias) {
    // Non-zero biases, so that their gradients pass through the recomputed path.
    at::NoGradGuard noGrad;
    at::manual_seed(17);
    for (const auto& block : decoder.weights().blocks) block.bk.uniform_(-0.1, 0.1);
  }
  decoder.loss(rows).backward();
  std::vector<at::Tensor> grads;
  for (const auto& parameter : tb::engine::namedParameters(decoder.weights())) {
    grads.push_back(parameter.tensor.grad().clone());
  }
  return grads;
}

void expectSameGradients(bool qkvBias, const RecomputePolicy& policy, const std::string& label) {
  const ModelConfig config = gradientConfig(qkvBias);
  at::manual_seed(5);
  const at::Tensor rows = at::randint(config.vocab, {config.batch, config.seq + 1}, at::kLong);
  const auto reference = gradients(config, {RecomputeMode::None, 0}, rows);
  const auto recomputed = gradients(config, policy, rows);
  const auto names = tb::engine::namedParameters(
      tb::engine::initialiseWeights(config, 99, c10::Device(c10::kCPU)));
  ASSERT_EQ(reference.size(), recomputed.size());
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const double scale = reference[i].norm().item<double>();
    ASSERT_GT(scale, 0.0) << names[i].name << " has no gradient to compare";
    const double error = (recomputed[i] - reference[i]).norm().item<double>() / scale;
    EXPECT_LE(error, kRelativeTolerance) << label << ": " << names[i].name;
  }
}

TEST(RecomputeGradients, SelectiveMatchesNone) {
  expectSameGradients(false, {RecomputeMode::Selective, 0}, "selective");
}

TEST(RecomputeGradients, FullMatchesNone) {
  expectSameGradients(false, {RecomputeMode::Full, 0}, "full");
}

TEST(RecomputeGradients, FirstLayersMatchNone) {
  expectSameGradients(false, {RecomputeMode::Layers, 1}, "layers:1");
  expectSameGradients(false, {RecomputeMode::Layers, 2}, "layers:2");
}

TEST(RecomputeGradients, EveryPolicyMatchesNoneWithQkvBiases) {
  for (const RecomputePolicy policy : {RecomputePolicy{RecomputeMode::Selective, 0},
                                       RecomputePolicy{RecomputeMode::Full, 0},
                                       RecomputePolicy{RecomputeMode::Layers, 2}}) {
    expectSameGradients(true, policy, tb::engine::toString(policy));
  }
}

TEST(RecomputeInBackward, GivesTheGradientsOfTheSegmentRunDirectly) {
  at::manual_seed(11);
  const at::Tensor x = at::randn({5, 7}, at::kDouble).requires_grad_(true);
  const at::Tensor w = at::randn({3, 7}, at::kDouble).requires_grad_(true);
  const at::Tensor frozen = at::randn({5, 3}, at::kDouble);  // needs no gradient
  const tb::engine::Segment segment = [](const std::vector<at::Tensor>& in) {
    return at::tanh(at::linear(in[0], in[1])) * in[2];
  };
  const at::Tensor direct = segment({x, w, frozen}).pow(2).sum();
  const auto expected = torch::autograd::grad({direct}, {x, w});

  const at::Tensor wrapped = tb::engine::recomputeInBackward(segment, {x, w, frozen});
  EXPECT_TRUE(wrapped.requires_grad());
  wrapped.pow(2).sum().backward();
  EXPECT_TRUE(at::allclose(x.grad(), expected[0], 0.0, 1e-14));
  EXPECT_TRUE(at::allclose(w.grad(), expected[1], 0.0, 1e-14));
  EXPECT_FALSE(frozen.grad().defined());
}

TEST(RecomputeInBackward, RunsTheSegmentAgainOnlyInBackwardAndNotUnderNoGrad) {
  int runs = 0;
  const tb::engine::Segment segment = [&runs](const std::vector<at::Tensor>& in) {
    ++runs;
    return in[0] * 2.0;
  };
  const at::Tensor x = at::ones({4}).requires_grad_(true);
  const at::Tensor y = tb::engine::recomputeInBackward(segment, {x});
  EXPECT_EQ(runs, 1);
  y.sum().backward();
  EXPECT_EQ(runs, 2);
  EXPECT_TRUE(at::equal(x.grad(), at::full({4}, 2.0)));

  at::NoGradGuard noGrad;
  const at::Tensor plain = tb::engine::recomputeInBackward(segment, {x});
  EXPECT_EQ(runs, 3);
  EXPECT_FALSE(plain.requires_grad());
}

TEST(RecomputeLayout, PlacesRecomputedBlocksFirst) {
  using enum BlockRecompute;
  EXPECT_EQ(tb::engine::recomputeLayout({RecomputeMode::Layers, 2}, 4),
            (std::vector<BlockRecompute>{Block, Block, Keep, Keep}));
  EXPECT_EQ(tb::engine::recomputeLayout({RecomputeMode::Full, 0}, 2),
            (std::vector<BlockRecompute>{Block, Block}));
  EXPECT_EQ(tb::engine::recomputeLayout({RecomputeMode::Selective, 0}, 2),
            (std::vector<BlockRecompute>{AttentionCore, AttentionCore}));
  EXPECT_EQ(tb::engine::recomputeLayout({RecomputeMode::None, 0}, 2),
            (std::vector<BlockRecompute>{Keep, Keep}));
}

}  // namespace
