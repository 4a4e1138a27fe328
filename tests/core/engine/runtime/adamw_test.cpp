// The engine's AdamW and clipping against LibTorch's own (torch::optim::AdamW
// with two parameter groups, torch::nn::utils::clip_grad_norm_), which follow
// torch.optim: same steps, same results.
#include <gtest/gtest.h>
#include <torch/types.h>  // clip_grad.h uses torch::Tensor without including it
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adamw.h>

#include "runtime/adamw.hpp"

namespace {

using tb::engine::NamedTensor;

std::vector<NamedTensor> makeParameters() {
  at::manual_seed(3);
  return {{"matrix", at::randn({4, 3}).requires_grad_(true)},
          {"norm", at::randn({3}).requires_grad_(true)},
          {"bias", at::randn({4}).requires_grad_(true)}};
}

void fillGradients(const std::vector<NamedTensor>& parameters, int step) {
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    at::manual_seed(static_cast<std::uint64_t>(100 * step) + i);
    parameters[i].tensor.mutable_grad() = at::randn(parameters[i].tensor.sizes());
  }
}

TEST(AdamW, MatchesTorchAdamWWithDecayOnMatricesOnly) {
  const auto ours = makeParameters();
  const auto theirs = makeParameters();
  tb::engine::AdamW optimizer(ours);
  const auto options = [](double decay) {
    return std::make_unique<torch::optim::AdamWOptions>(
        torch::optim::AdamWOptions(3e-4).betas({0.9, 0.95}).eps(1e-8).weight_decay(decay));
  };
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<at::Tensor>{theirs[0].tensor}, options(0.1));
  groups.emplace_back(std::vector<at::Tensor>{theirs[1].tensor, theirs[2].tensor}, options(0.0));
  torch::optim::AdamW reference(groups, torch::optim::AdamWOptions(3e-4));
  for (int step = 1; step <= 5; ++step) {
    fillGradients(ours, step);
    fillGradients(theirs, step);
    optimizer.step();
    reference.step();
  }
  EXPECT_EQ(optimizer.stepCount(), 5);
  for (std::size_t i = 0; i < ours.size(); ++i) {
    EXPECT_TRUE(at::allclose(ours[i].tensor, theirs[i].tensor, 1e-6, 1e-7)) << ours[i].name;
  }
  // The comparison is not vacuous: five steps of about lr each moved the weights.
  const auto initial = makeParameters();
  const double moved = (ours[1].tensor - initial[1].tensor).abs().mean().item<double>();
  EXPECT_GT(moved, 1e-4);
}

TEST(AdamW, RestoredStateContinuesLikeTheOriginal) {
  const auto first = makeParameters();
  tb::engine::AdamW original(first);
  fillGradients(first, 1);
  original.step();

  const auto second = makeParameters();
  {
    at::NoGradGuard noGrad;
    for (std::size_t i = 0; i < first.size(); ++i) second[i].tensor.copy_(first[i].tensor);
  }
  tb::engine::AdamW resumed(second);
  resumed.restore(original.state(), original.stepCount());
  fillGradients(first, 2);
  fillGradients(second, 2);
  original.step();
  resumed.step();
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_TRUE(at::equal(first[i].tensor, second[i].tensor)) << first[i].name;
  }
}

TEST(AdamW, ZeroGradDropsTheGradients) {
  const auto parameters = makeParameters();
  tb::engine::AdamW optimizer(parameters);
  fillGradients(parameters, 1);
  optimizer.zeroGrad();
  for (const auto& parameter : parameters) EXPECT_FALSE(parameter.tensor.grad().defined());
}

TEST(GradientClipping, MatchesTorchClipGradNormAndReturnsTheNormBeforeClipping) {
  const auto ours = makeParameters();
  const auto theirs = makeParameters();
  fillGradients(ours, 4);
  fillGradients(theirs, 4);
  std::vector<at::Tensor> reference;
  for (const auto& entry : theirs) reference.push_back(entry.tensor);
  const double expectedNorm = torch::nn::utils::clip_grad_norm_(reference, 1.0);
  const double norm = tb::engine::clipGradientNorm(ours, 1.0);
  EXPECT_NEAR(norm, expectedNorm, 1e-5);
  EXPECT_GT(norm, 1.0);  // the random gradients were large enough to be clipped
  double clippedSquares = 0.0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    EXPECT_TRUE(at::allclose(ours[i].tensor.grad(), theirs[i].tensor.grad(), 1e-6, 1e-7));
    clippedSquares += ours[i].tensor.grad().pow(2).sum().item<double>();
  }
  EXPECT_NEAR(std::sqrt(clippedSquares), 1.0, 1e-5);
}

TEST(GradientClipping, LeavesSmallGradientsUnchanged) {
  const auto parameters = makeParameters();
  for (const auto& entry : parameters) {
    entry.tensor.mutable_grad() = at::full(entry.tensor.sizes(), 0.01);
  }
  const double norm = tb::engine::clipGradientNorm(parameters, 1.0);
  EXPECT_NEAR(norm, 0.01 * std::sqrt(12.0 + 3.0 + 4.0), 1e-6);
  EXPECT_TRUE(at::allclose(parameters[0].tensor.grad(), at::full({4, 3}, 0.01)));
}

}  // namespace
