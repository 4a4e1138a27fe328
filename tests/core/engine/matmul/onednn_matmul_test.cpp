// The direct oneDNN path against at::linear: forward and all three gradients
// on odd shapes (no size a multiple of a vector width), 2-D and 3-D inputs,
// with and without bias, and a weight that arrives transposed. Each case first
// checks that oneDNN really takes it, so a silent fallback cannot pass.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include <vector>

#include "tensor_compare.hpp"
#include "matmul/onednn_matmul.hpp"

namespace {

using tb::engine::test::relativeError;

using tb::engine::oneDnnAccepts;
using tb::engine::oneDnnMatmulPath;

constexpr double kRuntimeOnednnRelTolerance = 1e-5;

struct Case {
  std::vector<std::int64_t> xShape;
  std::int64_t out = 0;
  bool bias = false;
  bool transposedWeight = false;
};

void expectMatchesAtenLinear(const Case& c) {
  at::manual_seed(7);
  const std::int64_t in = c.xShape.back();
  const at::Tensor x = at::randn(c.xShape).requires_grad_(true);
  at::Tensor w = c.transposedWeight ? at::randn({in, c.out}).t() : at::randn({c.out, in});
  w.requires_grad_(true);
  const at::Tensor b = c.bias ? at::randn({c.out}).requires_grad_(true) : at::Tensor();
  ASSERT_TRUE(oneDnnAccepts(x, w, b));

  const at::Tensor y = oneDnnMatmulPath().linear(x, w, b);
  const at::Tensor expected =
      at::linear(x, w, c.bias ? c10::optional<at::Tensor>(b) : c10::nullopt);
  ASSERT_EQ(y.sizes(), expected.sizes());
  EXPECT_LE(relativeError(y, expected), kRuntimeOnednnRelTolerance);

  const at::Tensor upstream = at::randn(expected.sizes());
  std::vector<at::Tensor> inputs{x, w};
  if (c.bias) inputs.push_back(b);
  const auto got = torch::autograd::grad({y}, inputs, {upstream});
  const auto want = torch::autograd::grad({expected}, inputs, {upstream});
  const char* names[] = {"dX", "dW", "db"};
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_EQ(got[i].sizes(), want[i].sizes()) << names[i];
    EXPECT_LE(relativeError(got[i], want[i]), kRuntimeOnednnRelTolerance) << names[i];
  }
}

TEST(OneDnnLinear, MatchesAtenOnTwoDimensionalInputWithoutBias) {
  expectMatchesAtenLinear({{37, 53}, 29, false, false});
}

TEST(OneDnnLinear, MatchesAtenOnTwoDimensionalInputWithBias) {
  expectMatchesAtenLinear({{61, 17}, 43, true, false});
}

TEST(OneDnnLinear, MatchesAtenOnThreeDimensionalInputWithoutBias) {
  expectMatchesAtenLinear({{3, 11, 71}, 19, false, false});
}

TEST(OneDnnLinear, MatchesAtenOnThreeDimensionalInputWithBias) {
  expectMatchesAtenLinear({{5, 7, 33}, 65, true, false});
}

TEST(OneDnnLinear, MatchesAtenWhenTheWeightIsATransposedView) {
  expectMatchesAtenLinear({{2, 13, 41}, 23, true, true});
}

TEST(OneDnnLinear, RepeatedShapesReuseTheCachedPrimitiveAndStayCorrect) {
  for (int i = 0; i < 3; ++i) expectMatchesAtenLinear({{9, 31}, 15, true, false});
}

TEST(OneDnnLinear, FallsBackToAtenForWhatItCannotReadInPlace) {
  const at::Tensor w = at::randn({6, 5});
  const at::Tensor doubles = at::randn({4, 5}, at::kDouble);
  const at::Tensor strided = at::randn({5, 4}).t();  // x must be row-major
  EXPECT_FALSE(oneDnnAccepts(doubles, w.to(at::kDouble), {}));
  EXPECT_FALSE(oneDnnAccepts(strided, w, {}));
  EXPECT_FALSE(oneDnnAccepts(at::randn({4, 5}), w, at::randn({7})));
  const at::Tensor y = oneDnnMatmulPath().linear(strided, w, {});
  EXPECT_LE(relativeError(y, at::linear(strided, w)), kRuntimeOnednnRelTolerance);
  const at::Tensor yDouble = oneDnnMatmulPath().linear(doubles, w.to(at::kDouble), {});
  EXPECT_EQ(yDouble.scalar_type(), at::kDouble);
}

TEST(OneDnnLinear, OnlyTheRequestedGradientsAreComputed) {
  const at::Tensor x = at::randn({8, 12});  // no grad: an activation from the data
  const at::Tensor w = at::randn({10, 12}).requires_grad_(true);
  const at::Tensor y = oneDnnMatmulPath().linear(x, w, {});
  y.sum().backward();
  ASSERT_TRUE(w.grad().defined());
  EXPECT_LE(relativeError(w.grad(), at::ones({8, 10}).t().mm(x)), kRuntimeOnednnRelTolerance);
}

}  // namespace
