// causalAttentionGrouped (K and V read in place) against causalAttention (K
// and V repeated to every query head), forward and backward, for several
// query-to-KV head ratios and odd sequence lengths.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include "tensor_compare.hpp"
#include "ops/ops.hpp"

namespace {

using tb::engine::test::relativeError;

constexpr double kRuntimeAttentionRelTolerance = 1e-5;

struct Shape {
  std::int64_t batch, seq, heads, kvHeads, headDim;
};

class GroupedAttention : public ::testing::TestWithParam<Shape> {};

TEST_P(GroupedAttention, MatchesRepeatedKeysAndValuesForwardAndBackward) {
  const Shape s = GetParam();
  at::manual_seed(11);
  const at::Tensor q = at::randn({s.batch, s.seq, s.heads, s.headDim}).requires_grad_(true);
  const at::Tensor k = at::randn({s.batch, s.seq, s.kvHeads, s.headDim}).requires_grad_(true);
  const at::Tensor v = at::randn({s.batch, s.seq, s.kvHeads, s.headDim}).requires_grad_(true);
  const at::Tensor grouped = tb::engine::ops::causalAttentionGrouped(q, k, v);
  const at::Tensor repeated = tb::engine::ops::causalAttention(q, k, v);
  ASSERT_EQ(grouped.sizes(), repeated.sizes());
  EXPECT_LE(relativeError(grouped, repeated), kRuntimeAttentionRelTolerance);

  const at::Tensor upstream = at::randn(repeated.sizes());
  const auto got = torch::autograd::grad({grouped}, {q, k, v}, {upstream});
  const auto want = torch::autograd::grad({repeated}, {q, k, v}, {upstream});
  const char* names[] = {"dq", "dk", "dv"};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_LE(relativeError(got[i], want[i]), kRuntimeAttentionRelTolerance) << names[i];
  }
}

INSTANTIATE_TEST_SUITE_P(HeadRatiosAndOddLengths, GroupedAttention,
                         ::testing::Values(Shape{2, 7, 4, 4, 8},    // no grouping
                                           Shape{2, 13, 4, 2, 8},   // pairs
                                           Shape{1, 9, 6, 2, 16},   // threes
                                           Shape{3, 5, 8, 1, 4},    // one KV head
                                           Shape{1, 1, 4, 2, 8}));  // a single position

TEST(GroupedAttentionRegression, AcceptsAStridedQueryView) {
  // A fused RoPE may hand back q as a strided view; view() would throw on it.
  at::manual_seed(3);
  const at::Tensor q = at::randn({2, 4, 5, 8}).transpose(1, 2);  // [B, T=5, H=4, hd]
  const at::Tensor k = at::randn({2, 5, 2, 8});
  const at::Tensor v = at::randn({2, 5, 2, 8});
  EXPECT_LE(relativeError(tb::engine::ops::causalAttentionGrouped(q, k, v),
                          tb::engine::ops::causalAttention(q, k, v)),
            kRuntimeAttentionRelTolerance);
}

}  // namespace
