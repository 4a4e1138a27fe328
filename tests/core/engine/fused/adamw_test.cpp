// fused::clippedAdamW against the reference it replaces, clipGradientNorm
// followed by AdamW::step, over five steps on parameters laid out like the
// flat buffers (2-D weights first: the decay prefix, then 1-D norms), both
// when clipping scales the gradients and when it does not. The buffers span
// more than one parallel chunk and the decay boundary falls inside one.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/adamw.hpp"
#include "fused/fused_ops.hpp"
#include "fused_parity.hpp"

namespace {

using tb::engine::AdamW;
using tb::engine::AdamWOptions;
using tb::engine::NamedTensor;
using tb::engine::testing::randomFloat;
using tb::engine::testing::relativeError;

// The bound for every fused operator. The fused norm adds 16-lane
// float blocks in double where the reference adds per-tensor float norms, so
// the clip scale differs in the last bits, and exp_avg_sq, quadratic in it,
// drifts to about 1.2e-6 after five steps at AVX-512 width.
constexpr double kFusedAdamwTolerance = 1e-5;

struct Scenario {
  double gradScale;
  double maxNorm;
};

/// Runs both optimizers for five steps and checks parameters, moments and
/// the returned norm after each; returns whether clipping ever triggered.
bool runFiveSteps(const Scenario& scenario) {
  const std::vector<std::vector<std::int64_t>> shapes{{300, 257}, {33, 7}, {97}, {5}};
  const AdamWOptions options{
      .learningRate = 1e-2, .beta1 = 0.9, .beta2 = 0.95, .epsilon = 1e-8, .weightDecay = 0.1};
  std::vector<NamedTensor> named;
  std::vector<at::Tensor> flatParts;
  std::int64_t decayEnd = 0;
  std::uint64_t seed = 10;
  for (const auto& shape : shapes) {
    const at::Tensor value = randomFloat(shape, seed++, 0.5);
    named.push_back({"p" + std::to_string(named.size()), value.clone().requires_grad_(true)});
    flatParts.push_back(value.flatten());
    if (shape.size() == 2) decayEnd += value.numel();
  }
  at::Tensor params = at::cat(flatParts);
  at::Tensor expAvg = at::zeros_like(params);
  at::Tensor expAvgSq = at::zeros_like(params);
  AdamW reference(named, options);

  bool clipped = false;
  for (std::int64_t step = 1; step <= 5; ++step) {
    std::vector<at::Tensor> gradParts;
    for (auto& entry : named) {
      const at::Tensor grad = randomFloat(entry.tensor.sizes(), seed++, scenario.gradScale);
      entry.tensor.mutable_grad() = grad.clone();
      gradParts.push_back(grad.flatten());
    }
    const at::Tensor grads = at::cat(gradParts);
    const double expectedNorm = tb::engine::clipGradientNorm(named, scenario.maxNorm);
    reference.step();
    const tb::engine::fused::AdamWStep hyper{options.learningRate, options.beta1,
                                             options.beta2,        options.epsilon,
                                             options.weightDecay,  step};
    const double norm = tb::engine::fused::clippedAdamW(params, grads, expAvg, expAvgSq, decayEnd,
                                                        hyper, scenario.maxNorm);
    clipped = clipped || expectedNorm > scenario.maxNorm;
    EXPECT_NEAR(norm, expectedNorm, kFusedAdamwTolerance * expectedNorm) << "step " << step;

    std::vector<at::Tensor> refParams, refAvg, refAvgSq;
    for (const auto& entry : named) refParams.push_back(entry.tensor.detach().flatten());
    const auto state = reference.state();
    for (std::size_t i = 0; i < state.size(); i += 2) {
      refAvg.push_back(state[i].tensor.flatten());
      refAvgSq.push_back(state[i + 1].tensor.flatten());
    }
    EXPECT_LE(relativeError(params, at::cat(refParams)), kFusedAdamwTolerance)
        << "params, step " << step;
    EXPECT_LE(relativeError(expAvg, at::cat(refAvg)), kFusedAdamwTolerance)
        << "exp_avg, step " << step;
    EXPECT_LE(relativeError(expAvgSq, at::cat(refAvgSq)), kFusedAdamwTolerance)
        << "exp_avg_sq, step " << step;
  }
  return clipped;
}

TEST(FusedClippedAdamW, MatchesReferenceWhenClippingTriggers) {
  // ~78k elements of unit gradients: a norm near 280, far above 1.
  EXPECT_TRUE(runFiveSteps({.gradScale = 1.0, .maxNorm = 1.0}));
}

TEST(FusedClippedAdamW, MatchesReferenceWhenClippingDoesNot) {
  EXPECT_FALSE(runFiveSteps({.gradScale = 1e-3, .maxNorm = 1.0}));
}

TEST(FusedClippedAdamW, RejectsBuffersOfDifferentLengthNamingThem) {
  at::Tensor params = at::zeros({10});
  at::Tensor avg = at::zeros({10});
  at::Tensor avgSq = at::zeros({9});
  try {
    (void)tb::engine::fused::clippedAdamW(params, at::zeros({10}), avg, avgSq, 0, {}, 1.0);
    FAIL() << "a short expAvgSq was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("expAvgSq has 9 elements"), std::string::npos)
        << error.what();
  }
}

TEST(FusedClippedAdamW, RejectsADecayEndPastTheBuffer) {
  at::Tensor params = at::zeros({4});
  at::Tensor avg = at::zeros({4});
  at::Tensor avgSq = at::zeros({4});
  EXPECT_THROW(
      (void)tb::engine::fused::clippedAdamW(params, at::zeros({4}), avg, avgSq, 5, {}, 1.0),
      std::invalid_argument);
}

}  // namespace
