// fused::causalAttention against ops::causalAttention: forward and the three
// gradients over a grid of odd shapes (sequence lengths that stop inside a
// query or key tile, head sizes that are not a multiple of the vector width,
// one to three query heads per KV head), and the memory it keeps for
// backward, measured by the tracking allocator: O(B·H·T), not O(T²).
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "fused/fused_ops.hpp"
#include "fused_test_support.hpp"
#include "ops/ops.hpp"
#include "runtime/tracking_allocator.hpp"

namespace {

namespace fused = tb::engine::fused;
namespace ops = tb::engine::ops;
using tb::engine::testing::randomFloat;
using tb::engine::testing::relativeError;

constexpr double kFusedAttentionTolerance = 1e-5;

struct AttentionCase {
  std::int64_t batch;
  std::int64_t seq;
  std::int64_t kvHeads;
  std::int64_t groups;  // query heads per KV head
  std::int64_t headDim;
};

std::string describe(const AttentionCase& c) {
  return "B=" + std::to_string(c.batch) + " T=" + std::to_string(c.seq) +
         " KV=" + std::to_string(c.kvHeads) + " H/KV=" + std::to_string(c.groups) +
         " hd=" + std::to_string(c.headDim);
}

class FusedAttentionParity
    : public ::testing::TestWithParam<std::tuple<std::int64_t, std::int64_t, std::int64_t>> {};

TEST_P(FusedAttentionParity, ForwardAndGradientsMatchTheReference) {
  const auto [seq, headDim, groups] = GetParam();
  const AttentionCase c{2, seq, 2, groups, headDim};
  const std::int64_t heads = c.kvHeads * c.groups;
  const auto seed = static_cast<std::uint64_t>(seq * 1000 + headDim * 10 + groups);
  const at::Tensor q = randomFloat({c.batch, c.seq, heads, c.headDim}, seed);
  const at::Tensor k = randomFloat({c.batch, c.seq, c.kvHeads, c.headDim}, seed + 1);
  const at::Tensor v = randomFloat({c.batch, c.seq, c.kvHeads, c.headDim}, seed + 2);
  const at::Tensor upstream = randomFloat({c.batch, c.seq, heads * c.headDim}, seed + 3);

  const at::Tensor fq = q.clone().requires_grad_();
  const at::Tensor fk = k.clone().requires_grad_();
  const at::Tensor fv = v.clone().requires_grad_();
  const at::Tensor fusedOut = fused::causalAttention(fq, fk, fv);
  (fusedOut * upstream).sum().backward();

  const at::Tensor rq = q.to(at::kDouble).requires_grad_();
  const at::Tensor rk = k.to(at::kDouble).requires_grad_();
  const at::Tensor rv = v.to(at::kDouble).requires_grad_();
  const at::Tensor refOut = ops::causalAttention(rq, rk, rv);
  (refOut * upstream.to(at::kDouble)).sum().backward();

  ASSERT_EQ(fusedOut.sizes(), refOut.sizes()) << describe(c);
  EXPECT_LE(relativeError(fusedOut, refOut), kFusedAttentionTolerance) << "output, " << describe(c);
  EXPECT_LE(relativeError(fq.grad(), rq.grad()), kFusedAttentionTolerance) << "dQ, " << describe(c);
  EXPECT_LE(relativeError(fk.grad(), rk.grad()), kFusedAttentionTolerance) << "dK, " << describe(c);
  EXPECT_LE(relativeError(fv.grad(), rv.grad()), kFusedAttentionTolerance) << "dV, " << describe(c);
}

// T = 1, 7 (inside one tile), 33 (one past a query tile), 64 (exactly one key
// tile), 130 (past two key tiles); hd 8, 16, 24 (24 is not a multiple of the
// 8-float vector); 1, 2 and 3 query heads per KV head.
INSTANTIATE_TEST_SUITE_P(OddShapes, FusedAttentionParity,
                         ::testing::Combine(::testing::Values(1, 7, 33, 64, 130),
                                            ::testing::Values(8, 16, 24),
                                            ::testing::Values(1, 2, 3)));

TEST(FusedAttention, AcceptsNonContiguousInputs) {
  // Q, K and V come out of one fused projection as strided views in the model.
  const at::Tensor qkv = randomFloat({1, 9, 4 + 2 + 2, 8}, 40);
  const at::Tensor q = qkv.narrow(2, 0, 4);
  const at::Tensor k = qkv.narrow(2, 4, 2);
  const at::Tensor v = qkv.narrow(2, 6, 2);
  ASSERT_FALSE(q.is_contiguous());
  EXPECT_LE(
      relativeError(fused::causalAttention(q, k, v),
                    ops::causalAttention(q.to(at::kDouble), k.to(at::kDouble), v.to(at::kDouble))),
      kFusedAttentionTolerance);
}

TEST(FusedAttention, RejectsMismatchedHeadsNamingTheShapes) {
  const at::Tensor q = randomFloat({1, 4, 3, 8}, 50);
  const at::Tensor kv = randomFloat({1, 4, 2, 8}, 51);
  try {
    (void)fused::causalAttention(q, kv, kv);
    FAIL() << "3 query heads over 2 KV heads was accepted";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("[1, 4, 2, 8]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(
      (void)fused::causalAttention(q.to(at::kDouble), kv.to(at::kDouble), kv.to(at::kDouble)),
      c10::Error);
}

// Bytes that stay allocated after forward while its output is held: what the
// autograd graph keeps for backward (the inputs exist before the call).
std::uint64_t retainedBytes(std::int64_t seq, bool fusedOp) {
  auto& tracker = tb::engine::TrackingCpuAllocator::install();
  const at::Tensor q = randomFloat({1, seq, 4, 16}, 60).requires_grad_();
  const at::Tensor k = randomFloat({1, seq, 2, 16}, 61).requires_grad_();
  const at::Tensor v = randomFloat({1, seq, 2, 16}, 62).requires_grad_();
  const std::uint64_t before = tracker.liveBytes();
  const at::Tensor out = fusedOp ? fused::causalAttention(q, k, v) : ops::causalAttention(q, k, v);
  return tracker.liveBytes() - before;
}

TEST(FusedAttention, KeepsOnlyTheOutputAndOneLogSumExpPerRowForBackward) {
  for (const std::int64_t seq : {256, 512}) {
    const std::uint64_t output = static_cast<std::uint64_t>(seq) * 4 * 16 * 4;
    const std::uint64_t logSumExp = static_cast<std::uint64_t>(seq) * 4 * 4;
    const std::uint64_t probabilities = static_cast<std::uint64_t>(seq * seq) * 4 * 4;
    EXPECT_LE(retainedBytes(seq, true), output + logSumExp) << "T=" << seq;
    // The measurement sees the plain op's T×T probabilities, so it would see ours.
    EXPECT_GE(retainedBytes(seq, false), probabilities) << "T=" << seq;
  }
  // Linear in T: doubling the sequence doubles what is kept, not quadruples it.
  EXPECT_EQ(retainedBytes(512, true), 2 * retainedBytes(256, true));
}

}  // namespace
