// The fused element-wise operators (RMSNorm, RoPE, the SwiGLU gate) against
// their references in ops/, forward and every input's gradient, on shapes that
// exercise the vector tails (rows 1, 7, 33; widths 5, 64, 97): float32
// relative error ≤ 1e-5 as fused_parity.hpp defines it. The backward passes
// are driven by a random output gradient, so no term can hide behind a sum.
#include <gtest/gtest.h>

#include <ATen/Parallel.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "fused/fused_ops.hpp"
#include "fused_parity.hpp"
#include "ops/ops.hpp"
#include "tb/engine/model.hpp"

namespace {

namespace fused = tb::engine::fused;
namespace ops = tb::engine::ops;
using tb::engine::testing::leaf;
using tb::engine::testing::randomFloat;
using tb::engine::testing::relativeError;

constexpr double kFusedElementwiseTolerance = 1e-5;

/// Runs `f` on leaf copies of `inputs`, back-propagates `outGrad`, and
/// returns the output followed by each input's gradient.
template <typename F>
std::vector<at::Tensor> forwardBackward(F f, const std::vector<at::Tensor>& inputs,
                                        std::uint64_t gradSeed) {
  std::vector<at::Tensor> leaves;
  for (const auto& input : inputs) leaves.push_back(leaf(input));
  const at::Tensor out = f(leaves);
  out.backward(randomFloat(out.sizes(), gradSeed));
  std::vector<at::Tensor> results{out.detach()};
  for (const auto& l : leaves) results.push_back(l.grad());
  return results;
}

template <typename Fused, typename Reference>
void expectParity(Fused fusedOp, Reference referenceOp, const std::vector<at::Tensor>& inputs,
                  const std::string& what) {
  const auto actual = forwardBackward(fusedOp, inputs, 99);
  const auto expected = forwardBackward(referenceOp, inputs, 99);
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const std::string part = i == 0 ? "output" : "gradient of input " + std::to_string(i - 1);
    ASSERT_TRUE(actual[i].defined()) << what << ": " << part;
    EXPECT_TRUE(actual[i].sizes().equals(expected[i].sizes())) << what << ": " << part;
    EXPECT_LE(relativeError(actual[i], expected[i]), kFusedElementwiseTolerance)
        << what << ": " << part;
  }
}

TEST(FusedRmsNorm, MatchesReferenceOnOddShapes) {
  std::uint64_t seed = 1;
  for (const std::int64_t rows : {1, 7, 33}) {
    for (const std::int64_t dim : {5, 64, 97}) {
      const at::Tensor x = randomFloat({rows, dim}, seed++, 3.0);
      const at::Tensor w = 1.0 + randomFloat({dim}, seed++, 0.1);
      expectParity([](const auto& in) { return fused::rmsNorm(in[0], in[1], 1e-5); },
                   [](const auto& in) { return ops::rmsNorm(in[0], in[1], 1e-5); }, {x, w},
                   "rows " + std::to_string(rows) + " dim " + std::to_string(dim));
    }
  }
}

TEST(FusedRmsNorm, MatchesReferenceOnBatchedNonContiguousInput) {
  // [B, T, D] as the decoder passes it, here a transposed view.
  const at::Tensor x = randomFloat({7, 3, 97}, 40).transpose(0, 1);
  const at::Tensor w = randomFloat({97}, 41);
  expectParity([](const auto& in) { return fused::rmsNorm(in[0], in[1], 1e-5); },
               [](const auto& in) { return ops::rmsNorm(in[0], in[1], 1e-5); }, {x, w},
               "[3, 7, 97] view");
}

TEST(FusedRmsNorm, WeightGradientIsTheSameOnAnyThreadCount) {
  const at::Tensor x = randomFloat({200, 97}, 42);
  const at::Tensor w = randomFloat({97}, 43);
  const auto gradientWith = [&](int threads) {
    at::set_num_threads(threads);
    return forwardBackward([](const auto& in) { return fused::rmsNorm(in[0], in[1], 1e-5); },
                           {x, w}, 44)[2];
  };
  const int original = at::get_num_threads();
  const at::Tensor one = gradientWith(1);
  const at::Tensor two = gradientWith(2);
  at::set_num_threads(original);
  EXPECT_TRUE(at::equal(one, two));
}

TEST(FusedRope, MatchesReferenceOnOddShapes) {
  std::uint64_t seed = 100;
  for (const std::int64_t seq : {1, 7, 33}) {
    for (const std::int64_t headDim : {2, 6, 64, 98}) {
      const auto t = ops::ropeTables(40, headDim, 10000.0, at::kFloat);
      const at::Tensor x = randomFloat({2, seq, 3, headDim}, seed++);
      expectParity([&t](const auto& in) { return fused::rope(in[0], t); },
                   [&t](const auto& in) { return ops::rope(in[0], t); }, {x},
                   "seq " + std::to_string(seq) + " head_dim " + std::to_string(headDim));
    }
  }
}

TEST(FusedRope, RejectsAnOddHeadDimNamingIt) {
  const auto tables = ops::ropeTables(8, 4, 10000.0, at::kFloat);
  try {
    (void)fused::rope(randomFloat({1, 4, 2, 5}, 1), tables);
    FAIL() << "an odd head_dim was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("last 5"), std::string::npos) << error.what();
  }
}

TEST(FusedSwiGluGate, MatchesReferenceOnOddShapes) {
  std::uint64_t seed = 200;
  const std::vector<std::vector<std::int64_t>> shapes{
      {1}, {7, 5}, {33, 97}, {3, 11, 64}, {4, 64, 192}};
  for (const auto& shape : shapes) {
    // Wide inputs reach the saturated ends of the sigmoid.
    const at::Tensor a = randomFloat(shape, seed++, 6.0);
    const at::Tensor b = randomFloat(shape, seed++);
    expectParity([](const auto& in) { return fused::swiGluGate(in[0], in[1]); },
                 [](const auto& in) { return ops::swiGluGate(in[0], in[1]); }, {a, b},
                 "shape of " + std::to_string(a.numel()) + " elements");
  }
}

TEST(FusedOps, RejectNonFloatInputNamingTheType) {
  const at::Tensor x = at::ones({2, 4}, at::kDouble);
  try {
    (void)fused::rmsNorm(x, at::ones({4}, at::kDouble), 1e-5);
    FAIL() << "a double input was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("Double"), std::string::npos) << error.what();
  }
  EXPECT_THROW((void)fused::swiGluGate(at::ones({3}), at::ones({4})), std::invalid_argument);
}

}  // namespace
