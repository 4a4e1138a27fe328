// Recomputation must change when activations exist, never what is computed:
// every policy's gradients are compared with no recomputation's on random
// weights and tokens, in float32, at a relative error of at most 1e-6 per
// parameter tensor. The primitives are also checked alone, on segments whose
// weights are inputs, and under no-grad.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/function.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "model/decoder.hpp"
#include "matmul/matmul_path.hpp"
#include "ops/ops.hpp"
#include "model/recompute.hpp"

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
  decoder.setRecompute(policy);
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
    // A key bias adds q·bk to every score of a query's row, which softmax
    // ignores: its exact gradient is zero and what autograd returns is
    // rounding noise, whose relative error says nothing. Every other tensor,
    // the key weights included, is compared.
    if (names[i].name.ends_with("attention.bk")) continue;
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

TEST(RecomputeGradients, EverySelectiveModuleSetMatchesNone) {
  for (std::uint8_t modules = 1; modules <= tb::model::kAllRecomputeModules; ++modules) {
    const RecomputePolicy policy{RecomputeMode::Selective, 0, modules};
    expectSameGradients(false, policy, tb::engine::toString(policy));
  }
}

TEST(RecomputeGradients, FullBlocksBeforeSelectiveOnesMatchNone) {
  const RecomputePolicy policy{RecomputeMode::Layers, 1, tb::model::kAllRecomputeModules};
  expectSameGradients(false, policy, tb::engine::toString(policy));
}

TEST(RecomputeGradients, EveryPolicyMatchesNoneWithQkvBiases) {
  for (const RecomputePolicy policy :
       {RecomputePolicy{RecomputeMode::Selective, 0}, RecomputePolicy{RecomputeMode::Full, 0},
        RecomputePolicy{RecomputeMode::Layers, 2},
        RecomputePolicy{RecomputeMode::Selective, 0, tb::model::kAllRecomputeModules},
        RecomputePolicy{RecomputeMode::Layers, 1, tb::model::kNorms}}) {
    expectSameGradients(true, policy, tb::engine::toString(policy));
  }
}

// The tuned runtime's operators: grouped attention (whose core is rebuilt by
// groupedAttentionRebuiltInBackward) on the given matrix path, whose
// linearGradients form the rebuilt products' gradients.
void expectSameGradientsOnPath(const tb::engine::MatmulPath& path, const RecomputePolicy& policy) {
  const ModelConfig config = gradientConfig(true);
  at::manual_seed(5);
  const at::Tensor rows = at::randint(config.vocab, {config.batch, config.seq + 1}, at::kLong);
  const auto ops = tb::engine::makeReferenceOps(path, true);
  const auto run = [&](const RecomputePolicy& chosen) {
    Decoder decoder(config, tb::engine::initialiseWeights(config, 99, c10::Device(c10::kCPU)), *ops,
                    at::kFloat);
    decoder.setRecompute(chosen);
    decoder.loss(rows).backward();
    std::vector<at::Tensor> grads;
    for (const auto& parameter : tb::engine::namedParameters(decoder.weights())) {
      grads.push_back(parameter.tensor.grad().clone());
    }
    return grads;
  };
  const auto reference = run({RecomputeMode::None, 0});
  const auto recomputed = run(policy);
  const auto names = tb::engine::namedParameters(
      tb::engine::initialiseWeights(config, 99, c10::Device(c10::kCPU)));
  ASSERT_EQ(reference.size(), recomputed.size());
  for (std::size_t i = 0; i < reference.size(); ++i) {
    if (names[i].name.ends_with("attention.bk")) continue;  // rounding noise: see above
    const double scale = reference[i].norm().item<double>();
    ASSERT_GT(scale, 0.0) << names[i].name << " has no gradient to compare";
    const double error = (recomputed[i] - reference[i]).norm().item<double>() / scale;
    EXPECT_LE(error, kRelativeTolerance)
        << path.name() << ", " << tb::engine::toString(policy) << ": " << names[i].name;
  }
}

TEST(RecomputeGradients, EveryModuleSetMatchesNoneOnTheSpecialisedPath) {
  // oneDNN's where the engine links it (the last of the probe's candidates).
  const tb::engine::MatmulPath& path = *tb::engine::cpuMatmulPaths().back();
  for (std::uint8_t modules = 1; modules <= tb::model::kAllRecomputeModules; ++modules) {
    expectSameGradientsOnPath(path, {RecomputeMode::Selective, 0, modules});
  }
}

TEST(RecomputeGradients, EveryModuleSetMatchesNoneWithGroupedAttentionOnAten) {
  for (std::uint8_t modules = 1; modules <= tb::model::kAllRecomputeModules; ++modules) {
    expectSameGradientsOnPath(tb::engine::atenMatmulPath(), {RecomputeMode::Selective, 0, modules});
  }
  expectSameGradientsOnPath(tb::engine::atenMatmulPath(),
                            {RecomputeMode::Layers, 1, tb::model::kCoreAttention});
}

/// How far the rebuilt core is from plain autograd through
/// causalAttentionGrouped: the output's largest difference, and dq, dk and
/// dv's largest difference relative to their largest entry, for one random
/// upstream gradient.
struct RebuiltCoreErrors {
  double output = 0;
  std::array<double, 3> gradients{};
};

RebuiltCoreErrors rebuiltCoreErrors(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  const at::Tensor rebuilt = tb::engine::groupedAttentionRebuiltInBackward(q, k, v);
  const at::Tensor plain = tb::engine::ops::causalAttentionGrouped(q, k, v);
  const at::Tensor upstream = at::randn(plain.sizes(), plain.options());
  const auto got = torch::autograd::grad({rebuilt}, {q, k, v}, {upstream});
  const auto want = torch::autograd::grad({plain}, {q, k, v}, {upstream});
  RebuiltCoreErrors errors;
  errors.output = (rebuilt - plain).abs().max().item<double>();
  for (std::size_t i = 0; i < 3; ++i) {
    errors.gradients[i] =
        (got[i] - want[i]).abs().max().item<double>() / want[i].abs().max().item<double>();
  }
  return errors;
}

constexpr const char* kGradientNames[] = {"dq", "dk", "dv"};

TEST(GroupedAttentionRebuiltInBackward, GivesPlainAutogradsOutputAndGradients) {
  // Double precision, so any difference is a wrong formula, not rounding:
  // the weighted sum's gradients are formed by hand from the rebuilt
  // probabilities, for several query-to-KV ratios.
  for (const auto& [heads, kvHeads] : {std::pair{6, 2}, std::pair{4, 4}, std::pair{3, 1}}) {
    at::manual_seed(21);
    const auto options = at::TensorOptions().dtype(at::kDouble);
    const RebuiltCoreErrors errors =
        rebuiltCoreErrors(at::randn({2, 7, heads, 8}, options).requires_grad_(true),
                          at::randn({2, 7, kvHeads, 8}, options).requires_grad_(true),
                          at::randn({2, 7, kvHeads, 8}, options).requires_grad_(true));
    EXPECT_LE(errors.output, 1e-12);
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_LE(errors.gradients[i], 1e-12)
          << heads << " heads, " << kvHeads << " KV heads: " << kGradientNames[i];
    }
  }
}

TEST(GroupedAttentionRebuiltInBackward, MatchesPlainAutogradInFloatOverLongRows) {
  // The softmax's backward writes dS over dP in place (ATen's kernel reads a
  // row before it writes it). Rows of 67 keys run through the vectorised
  // body and the tail of every vector width; float32 as in training, against
  // autograd's out-of-place backward of the same forward.
  at::manual_seed(23);
  const RebuiltCoreErrors errors =
      rebuiltCoreErrors(at::randn({2, 67, 6, 16}).requires_grad_(true),
                        at::randn({2, 67, 2, 16}).requires_grad_(true),
                        at::randn({2, 67, 2, 16}).requires_grad_(true));
  EXPECT_EQ(errors.output, 0.0);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_LE(errors.gradients[i], 1e-6) << kGradientNames[i];
}

TEST(GroupedAttentionRebuiltInBackward, IsOneGraphNodeAndUnderNoGradThePlainFunction) {
  // One node whose saved tensors are q, k and v: the probabilities are not
  // kept (their bytes are checked against the predictor by the memory tests).
  at::manual_seed(22);
  const at::Tensor q = at::randn({2, 16, 6, 8}).requires_grad_(true);
  const at::Tensor k = at::randn({2, 16, 2, 8}).requires_grad_(true);
  const at::Tensor v = at::randn({2, 16, 2, 8}).requires_grad_(true);
  const at::Tensor rebuilt = tb::engine::groupedAttentionRebuiltInBackward(q, k, v);
  ASSERT_NE(rebuilt.grad_fn(), nullptr);
  EXPECT_NE(rebuilt.grad_fn()->name().find("RebuiltGroupedAttention"), std::string::npos)
      << rebuilt.grad_fn()->name();
  at::NoGradGuard noGrad;
  const at::Tensor plain = tb::engine::groupedAttentionRebuiltInBackward(q, k, v);
  EXPECT_EQ(plain.grad_fn(), nullptr);
  EXPECT_TRUE(plain.equal(rebuilt.detach()));
}

TEST(LinearsOfRecomputedInput, GiveTheGradientsOfThePlainProductsAndRebuildOnlyTheInput) {
  at::manual_seed(13);
  const at::Tensor x = at::randn({2, 5, 7}, at::kDouble).requires_grad_(true);
  const at::Tensor scale = at::randn({7}, at::kDouble).requires_grad_(true);
  const at::Tensor w1 = at::randn({3, 7}, at::kDouble).requires_grad_(true);
  const at::Tensor w2 = at::randn({4, 7}, at::kDouble).requires_grad_(true);
  const at::Tensor b2 = at::randn({4}, at::kDouble).requires_grad_(true);
  int prologueRuns = 0;
  const tb::engine::Segment prologue = [&prologueRuns](const std::vector<at::Tensor>& in) {
    ++prologueRuns;
    return at::tanh(in[0]) * in[1];
  };
  const auto loss = [](const at::Tensor& a, const at::Tensor& b) {
    return (a.pow(2).sum() + (b * b.sin()).sum());
  };
  const at::Tensor input = prologue({x, scale});
  const at::Tensor direct = loss(at::linear(input, w1), at::linear(input, w2, b2));
  const auto expected = torch::autograd::grad({direct}, {x, scale, w1, w2, b2});
  prologueRuns = 0;

  const auto outputs = tb::engine::linearsOfRecomputedInput(
      tb::engine::atenMatmulPath(), prologue, {x, scale}, {w1, w2}, {at::Tensor(), b2});
  ASSERT_EQ(outputs.size(), 2U);
  EXPECT_EQ(prologueRuns, 1);
  loss(outputs[0], outputs[1]).backward();
  EXPECT_EQ(prologueRuns, 2);  // once more in backward; the products are not rerun
  const std::vector<at::Tensor> actual{x.grad(), scale.grad(), w1.grad(), w2.grad(), b2.grad()};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(at::allclose(actual[i], expected[i], 0.0, 1e-12)) << "gradient " << i;
  }
}

TEST(LinearsOfRecomputedInput, RunPlainlyUnderNoGrad) {
  const at::Tensor x = at::ones({3, 2}).requires_grad_(true);
  const at::Tensor w = at::full({1, 2}, 0.5);
  at::NoGradGuard noGrad;
  const auto outputs = tb::engine::linearsOfRecomputedInput(
      tb::engine::atenMatmulPath(), [](const std::vector<at::Tensor>& in) { return in[0] * 2.0; },
      {x}, {w}, {});
  ASSERT_EQ(outputs.size(), 1U);
  EXPECT_FALSE(outputs[0].requires_grad());
  EXPECT_TRUE(at::equal(outputs[0], at::full({3, 1}, 2.0)));
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
  const BlockRecompute block{true, 0};
  const BlockRecompute keep{false, 0};
  const BlockRecompute core{false, tb::model::kCoreAttention};
  const BlockRecompute lean{false, tb::model::kBlockRecomputeModules};
  EXPECT_EQ(tb::engine::recomputeLayout({RecomputeMode::Layers, 2}, 4),
            (std::vector<BlockRecompute>{block, block, keep, keep}));
  EXPECT_EQ(tb::engine::recomputeLayout({RecomputeMode::Full, 0}, 2),
            (std::vector<BlockRecompute>{block, block}));
  EXPECT_EQ(tb::engine::recomputeLayout({RecomputeMode::Selective, 0}, 2),
            (std::vector<BlockRecompute>{core, core}));
  EXPECT_EQ(tb::engine::recomputeLayout({RecomputeMode::None, 0}, 2),
            (std::vector<BlockRecompute>{keep, keep}));
  EXPECT_EQ(
      tb::engine::recomputeLayout({RecomputeMode::Layers, 1, tb::model::kAllRecomputeModules}, 3),
      (std::vector<BlockRecompute>{block, lean, lean}));
}

TEST(RecomputeLayout, TheHeadModuleIsNoBlocksPart) {
  const BlockRecompute lean{false, tb::model::kBlockRecomputeModules};
  const RecomputePolicy everything{RecomputeMode::Selective, 0, tb::model::kAllRecomputeModules};
  EXPECT_EQ(tb::engine::recomputeLayout(everything, 2), (std::vector<BlockRecompute>{lean, lean}));
  EXPECT_TRUE(tb::engine::rebuildsHead(everything));
  EXPECT_TRUE(tb::engine::rebuildsHead({RecomputeMode::Layers, 3, tb::model::kOutputHead}));
  EXPECT_FALSE(tb::engine::rebuildsHead({RecomputeMode::Selective, 0}));
  EXPECT_FALSE(tb::engine::rebuildsHead({RecomputeMode::Full, 0}));
}

TEST(RecomputeLayout, ADecoderRefusesAnUnresolvedAuto) {
  const ModelConfig config = gradientConfig(false);
  Decoder decoder(config, tb::engine::initialiseWeights(config, 99, c10::Device(c10::kCPU)),
                  tb::engine::referenceOps(), at::kFloat);
  EXPECT_THROW(decoder.setRecompute({RecomputeMode::Auto, 0}), std::invalid_argument);
}

}  // namespace
