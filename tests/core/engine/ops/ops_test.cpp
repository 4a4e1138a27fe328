// Each reference op: its forward against the formula of the model definition,
// and its backward against finite differences in double on tiny shapes.
#include <gtest/gtest.h>

#include <cmath>

#include "gradient_check.hpp"
#include "ops/ops.hpp"

namespace {

namespace ops = tb::engine::ops;
using tb::engine::testing::checkGradients;
using tb::engine::testing::weightedSum;

constexpr double kGradientTolerance = 1e-6;

at::Tensor randomDouble(at::IntArrayRef shape, std::uint64_t seed) {
  at::manual_seed(seed);
  return at::randn(shape, at::kDouble);
}

TEST(RmsNorm, MatchesTheDefinitionElementByElement) {
  const at::Tensor x = randomDouble({2, 3, 8}, 1);
  const at::Tensor w = randomDouble({8}, 2);
  const at::Tensor out = ops::rmsNorm(x, w, 1e-5);
  const double x0 = x[1][2][5].item<double>();
  double meanSquare = 0.0;
  for (std::int64_t i = 0; i < 8; ++i) meanSquare += std::pow(x[1][2][i].item<double>(), 2) / 8;
  EXPECT_NEAR(out[1][2][5].item<double>(), x0 / std::sqrt(meanSquare + 1e-5) * w[5].item<double>(),
              1e-12);
}

TEST(RmsNorm, GradientMatchesFiniteDifferences) {
  const auto check = checkGradients(
      [](const std::vector<at::Tensor>& in) {
        return weightedSum(ops::rmsNorm(in[0], in[1], 1e-5));
      },
      {randomDouble({2, 3, 6}, 3), randomDouble({6}, 4)});
  EXPECT_EQ(check.elementsChecked, 42U);
  EXPECT_LT(check.worstError, kGradientTolerance) << check.where;
}

TEST(Rope, RotatesConsecutivePairsByPositionTimesFrequency) {
  const std::int64_t headDim = 4;
  const double theta = 10000.0;
  const auto tables = ops::ropeTables(3, headDim, theta, at::kDouble);
  const at::Tensor x = randomDouble({1, 3, 1, headDim}, 5);
  const at::Tensor out = ops::rope(x, tables);
  // Position 2, pair i = 1 (elements 2 and 3): angle 2 · theta^(-2/4).
  const double angle = 2.0 * std::pow(theta, -0.5);
  const double a = x[0][2][0][2].item<double>();
  const double b = x[0][2][0][3].item<double>();
  EXPECT_NEAR(out[0][2][0][2].item<double>(), a * std::cos(angle) - b * std::sin(angle), 1e-12);
  EXPECT_NEAR(out[0][2][0][3].item<double>(), a * std::sin(angle) + b * std::cos(angle), 1e-12);
  // Position 0 is not rotated.
  EXPECT_TRUE(at::allclose(out.select(1, 0), x.select(1, 0), 0.0, 1e-15));
}

TEST(Rope, PreservesTheNormOfEveryPair) {
  const auto tables = ops::ropeTables(5, 6, 500000.0, at::kDouble);
  const at::Tensor x = randomDouble({2, 5, 3, 6}, 6);
  const at::Tensor out = ops::rope(x, tables);
  const auto pairNorms = [](const at::Tensor& t) {
    return t.reshape({2, 5, 3, 3, 2}).pow(2).sum(-1);
  };
  EXPECT_TRUE(at::allclose(pairNorms(out), pairNorms(x), 1e-12, 1e-12));
}

TEST(Rope, GradientMatchesFiniteDifferences) {
  const auto tables = ops::ropeTables(4, 4, 10000.0, at::kDouble);
  const auto check = checkGradients(
      [&tables](const std::vector<at::Tensor>& in) {
        return weightedSum(ops::rope(in[0], tables));
      },
      {randomDouble({2, 4, 2, 4}, 7)});
  EXPECT_LT(check.worstError, kGradientTolerance) << check.where;
}

TEST(CausalAttention, EarlierPositionsIgnoreLaterTokens) {
  const at::Tensor q = randomDouble({1, 5, 4, 2}, 8);
  const at::Tensor k = randomDouble({1, 5, 2, 2}, 9);
  const at::Tensor v = randomDouble({1, 5, 2, 2}, 10);
  const at::Tensor before = ops::causalAttention(q, k, v);
  at::Tensor k2 = k.clone();
  at::Tensor v2 = v.clone();
  k2.select(1, 4).fill_(3.0);
  v2.select(1, 4).fill_(-3.0);
  const at::Tensor after = ops::causalAttention(q, k2, v2);
  EXPECT_TRUE(at::allclose(before.narrow(1, 0, 4), after.narrow(1, 0, 4), 0.0, 1e-15));
  EXPECT_FALSE(at::allclose(before.select(1, 4), after.select(1, 4)));
}

TEST(CausalAttention, FirstPositionReturnsItsOwnValueAndScalesByHeadDim) {
  const at::Tensor q = randomDouble({1, 2, 1, 4}, 11);
  const at::Tensor k = randomDouble({1, 2, 1, 4}, 12);
  const at::Tensor v = randomDouble({1, 2, 1, 4}, 13);
  const at::Tensor out = ops::causalAttention(q, k, v);
  EXPECT_TRUE(at::allclose(out[0][0], v[0][0][0], 0.0, 1e-15));
  // Position 1 mixes both values with softmax(q·k / sqrt(4)).
  const double s0 = (q[0][1][0] * k[0][0][0]).sum().item<double>() / 2.0;
  const double s1 = (q[0][1][0] * k[0][1][0]).sum().item<double>() / 2.0;
  const double p1 = std::exp(s1) / (std::exp(s0) + std::exp(s1));
  const at::Tensor expected = v[0][0][0] * (1.0 - p1) + v[0][1][0] * p1;
  EXPECT_TRUE(at::allclose(out[0][1], expected, 1e-12, 1e-12));
}

TEST(CausalAttention, GroupedHeadsEqualFullHeadsWithRepeatedKeysAndValues) {
  const at::Tensor q = randomDouble({2, 3, 4, 2}, 14);
  const at::Tensor k = randomDouble({2, 3, 2, 2}, 15);
  const at::Tensor v = randomDouble({2, 3, 2, 2}, 16);
  // Query heads 0,1 read KV head 0; heads 2,3 read KV head 1.
  const auto repeatHeads = [](const at::Tensor& t) {
    return at::stack({t.select(2, 0), t.select(2, 0), t.select(2, 1), t.select(2, 1)}, 2);
  };
  const at::Tensor kFull = repeatHeads(k);
  const at::Tensor vFull = repeatHeads(v);
  EXPECT_TRUE(at::allclose(ops::causalAttention(q, k, v), ops::causalAttention(q, kFull, vFull),
                           0.0, 1e-15));
}

TEST(CausalAttention, GradientMatchesFiniteDifferences) {
  const auto check = checkGradients(
      [](const std::vector<at::Tensor>& in) {
        return weightedSum(ops::causalAttention(in[0], in[1], in[2]));
      },
      {randomDouble({1, 3, 4, 2}, 17), randomDouble({1, 3, 2, 2}, 18),
       randomDouble({1, 3, 2, 2}, 19)});
  EXPECT_LT(check.worstError, kGradientTolerance) << check.where;
}

TEST(SwiGlu, MatchesTheDefinitionAndItsGradient) {
  const at::Tensor x = randomDouble({2, 3}, 20);
  const at::Tensor w1 = randomDouble({5, 3}, 21);
  const at::Tensor w2 = randomDouble({3, 5}, 22);
  const at::Tensor w3 = randomDouble({5, 3}, 23);
  const at::Tensor a = x.matmul(w1.t());
  const at::Tensor expected = (a * at::sigmoid(a) * x.matmul(w3.t())).matmul(w2.t());
  EXPECT_TRUE(at::allclose(ops::swiGlu(x, w1, w2, w3), expected, 1e-12, 1e-12));
  const auto check = checkGradients(
      [](const std::vector<at::Tensor>& in) {
        return weightedSum(ops::swiGlu(in[0], in[1], in[2], in[3]));
      },
      {x, w1, w2, w3});
  EXPECT_LT(check.worstError, kGradientTolerance) << check.where;
}

TEST(CrossEntropy, UniformLogitsCostLogVocab) {
  const at::Tensor logits = at::zeros({6, 32}, at::kDouble);
  const at::Tensor targets = at::arange(6, at::kLong);
  EXPECT_NEAR(ops::crossEntropy(logits, targets).item<double>(), std::log(32.0), 1e-12);
}

TEST(CrossEntropy, IsTheMeanNegativeLogProbabilityOfTheTargets) {
  const at::Tensor logits = randomDouble({3, 5}, 24);
  const at::Tensor targets = at::tensor(std::vector<std::int64_t>{4, 0, 2}, at::kLong);
  const at::Tensor logProbabilities = at::log_softmax(logits, -1);
  const double expected =
      -(logProbabilities[0][4] + logProbabilities[1][0] + logProbabilities[2][2]).item<double>() /
      3.0;
  EXPECT_NEAR(ops::crossEntropy(logits, targets).item<double>(), expected, 1e-12);
}

TEST(CrossEntropy, GradientMatchesFiniteDifferences) {
  const at::Tensor targets = at::tensor(std::vector<std::int64_t>{1, 3, 0, 3}, at::kLong);
  const auto check = checkGradients(
      [](const std::vector<at::Tensor>& in) { return ops::crossEntropy(in[0], in[1]); },
      {randomDouble({4, 5}, 25), targets});
  EXPECT_EQ(check.elementsChecked, 20U);
  EXPECT_LT(check.worstError, kGradientTolerance) << check.where;
}

}  // namespace
