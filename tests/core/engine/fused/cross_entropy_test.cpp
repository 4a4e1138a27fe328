// fused::headLoss and fused::headLossRebuiltInBackward (the `head` recompute
// module) against ops::crossEntropy(at::linear(x, W), t): the loss and both
// gradients over row counts that are not multiples of the chunk, chunks of
// one row and chunks larger than the batch; that their products go through
// the MatmulPath they are given, once per chunk in forward and, rebuilt, once
// more in backward; that the full [N, V] logits never exist (tracking
// allocator peak); and that bad targets are refused by value.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "fused/fused_ops.hpp"
#include "fused_test_support.hpp"
#include "ops/ops.hpp"
#include "runtime/tracking_allocator.hpp"

namespace {

namespace fused = tb::engine::fused;
namespace ops = tb::engine::ops;
using tb::engine::atenMatmulPath;
using tb::engine::testing::randomFloat;
using tb::engine::testing::relativeError;

constexpr double kFusedHeadLossTolerance = 1e-5;

using HeadLoss = at::Tensor (*)(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                const tb::engine::MatmulPath&, std::int64_t);

/// Both chunked heads, named for failure messages.
const std::vector<std::pair<const char*, HeadLoss>>& chunkedHeads() {
  static const std::vector<std::pair<const char*, HeadLoss>> heads{
      {"fused", &fused::headLoss}, {"rebuilt", &fused::headLossRebuiltInBackward}};
  return heads;
}

at::Tensor randomTargets(std::int64_t rows, std::int64_t vocab, std::uint64_t seed) {
  at::manual_seed(seed);
  return at::randint(vocab, {rows}, at::kLong);
}

// rows, dim, vocab, chunkRows
class FusedHeadLossParity
    : public ::testing::TestWithParam<
          std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>> {};

TEST_P(FusedHeadLossParity, LossAndGradientsMatchTheReference) {
  const auto [rows, dim, vocab, chunkRows] = GetParam();
  const std::string shape = "N=" + std::to_string(rows) + " D=" + std::to_string(dim) +
                            " V=" + std::to_string(vocab) + " chunk=" + std::to_string(chunkRows);
  const auto seed = static_cast<std::uint64_t>(rows * 7 + dim * 11 + vocab + chunkRows);
  const at::Tensor x = randomFloat({rows, dim}, seed);
  const at::Tensor w = randomFloat({vocab, dim}, seed + 1) * 0.3;
  const at::Tensor t = randomTargets(rows, vocab, seed + 2);

  const at::Tensor rx = x.to(at::kDouble).requires_grad_();
  const at::Tensor rw = w.to(at::kDouble).requires_grad_();
  const at::Tensor refLoss = ops::crossEntropy(at::linear(rx, rw), t);
  (refLoss * 2.5).backward();

  for (const auto& [name, head] : chunkedHeads()) {
    const at::Tensor fx = x.clone().requires_grad_();
    const at::Tensor fw = w.clone().requires_grad_();
    const at::Tensor loss = head(fx, fw, t, atenMatmulPath(), chunkRows);
    // A non-unit upstream gradient checks that backward scales by it.
    (loss * 2.5).backward();
    EXPECT_EQ(loss.dim(), 0) << name;
    EXPECT_LE(relativeError(loss, refLoss), kFusedHeadLossTolerance) << name << " loss, " << shape;
    EXPECT_LE(relativeError(fx.grad(), rx.grad()), kFusedHeadLossTolerance)
        << name << " dX, " << shape;
    EXPECT_LE(relativeError(fw.grad(), rw.grad()), kFusedHeadLossTolerance)
        << name << " dW, " << shape;
  }
}

INSTANTIATE_TEST_SUITE_P(
    OddShapes, FusedHeadLossParity,
    ::testing::Values(std::make_tuple(1, 8, 5, 256),       // one row, chunk past the batch
                      std::make_tuple(37, 8, 97, 16),      // 2 full chunks and 5 rows
                      std::make_tuple(37, 24, 97, 1),      // a chunk per row
                      std::make_tuple(300, 24, 1000, 64),  // 4 full chunks and 44 rows
                      std::make_tuple(300, 16, 1000, 300), std::make_tuple(129, 40, 3001, 128)));

// Counts products so the test can tell the path, not ATen, served them.
class CountingPath final : public tb::engine::MatmulPath {
 public:
  [[nodiscard]] std::string_view name() const override { return "counting"; }
  [[nodiscard]] at::Tensor linear(const at::Tensor& x, const at::Tensor& weight,
                                  const at::Tensor& bias) const override {
    ++calls;
    return atenMatmulPath().linear(x, weight, bias);
  }
  [[nodiscard]] tb::engine::LinearGradients linearGradients(const at::Tensor& gradient,
                                                            const at::Tensor& x,
                                                            const at::Tensor& weight,
                                                            bool withBias) const override {
    ++calls;
    return tb::engine::atenLinearGradients(gradient, x, weight, withBias);
  }
  mutable std::atomic<int> calls{0};
};

TEST(FusedHeadLoss, ComputesEachChunksLogitsOnTheGivenPathOnce) {
  const CountingPath path;
  const at::Tensor x = randomFloat({300, 16}, 20).requires_grad_();
  const at::Tensor w = randomFloat({50, 16}, 21).requires_grad_();
  const at::Tensor loss = fused::headLoss(x, w, randomTargets(300, 50, 22), path, 64);
  EXPECT_EQ(path.calls.load(), 5);  // ceil(300 / 64) chunks
  loss.backward();
  EXPECT_EQ(path.calls.load(), 5);  // the gradients were formed in forward
}

TEST(FusedHeadLoss, RebuiltHeadComputesEachChunksLogitsAgainInBackward) {
  const CountingPath path;
  const at::Tensor x = randomFloat({300, 16}, 20).requires_grad_();
  const at::Tensor w = randomFloat({50, 16}, 21).requires_grad_();
  const at::Tensor loss =
      fused::headLossRebuiltInBackward(x, w, randomTargets(300, 50, 22), path, 64);
  EXPECT_EQ(path.calls.load(), 5);
  loss.backward();
  EXPECT_EQ(path.calls.load(), 10);
}

TEST(FusedHeadLoss, RebuiltHeadFormsOnlyTheGradientsAsked) {
  const at::Tensor targets = randomTargets(70, 40, 62);
  const at::Tensor x = randomFloat({70, 12}, 60);
  const at::Tensor fw = randomFloat({40, 12}, 61).requires_grad_();
  const at::Tensor rw = fw.detach().clone().requires_grad_();
  fused::headLossRebuiltInBackward(x, fw, targets, atenMatmulPath(), 16).backward();
  ops::crossEntropy(at::linear(x, rw), targets).backward();
  EXPECT_FALSE(x.grad().defined());
  EXPECT_LE(relativeError(fw.grad(), rw.grad()), kFusedHeadLossTolerance);
}

TEST(FusedHeadLoss, ScalesItsGradientsByTheIncomingGradient) {
  const at::Tensor targets = randomTargets(70, 40, 42);
  const at::Tensor x = randomFloat({70, 12}, 40);
  const at::Tensor w = randomFloat({40, 12}, 41);
  const at::Tensor rx = x.clone().requires_grad_();
  const at::Tensor rw = w.clone().requires_grad_();
  (ops::crossEntropy(at::linear(rx, rw), targets) * -2.5).backward();
  for (const auto& [name, head] : chunkedHeads()) {
    const at::Tensor fx = x.clone().requires_grad_();
    const at::Tensor fw = w.clone().requires_grad_();
    (head(fx, fw, targets, atenMatmulPath(), 16) * -2.5).backward();
    EXPECT_LE(relativeError(fx.grad(), rx.grad()), kFusedHeadLossTolerance) << name;
    EXPECT_LE(relativeError(fw.grad(), rw.grad()), kFusedHeadLossTolerance) << name;
  }
}

TEST(FusedHeadLoss, GivesTheSameLossWhenNothingRecordsGradients) {
  const at::Tensor targets = randomTargets(70, 40, 52);
  const at::Tensor x = randomFloat({70, 12}, 50).requires_grad_();
  const at::Tensor w = randomFloat({40, 12}, 51).requires_grad_();
  const double recorded = fused::headLoss(x, w, targets, atenMatmulPath(), 16).item<double>();
  const at::NoGradGuard noGrad;
  const at::Tensor unrecorded = fused::headLoss(x, w, targets, atenMatmulPath(), 16);
  EXPECT_FALSE(unrecorded.requires_grad());
  EXPECT_DOUBLE_EQ(unrecorded.item<double>(), recorded);
}

TEST(FusedHeadLoss, NeverHoldsTheFullLogits) {
  auto& tracker = tb::engine::TrackingCpuAllocator::install();
  const std::int64_t rows = 512;
  const std::int64_t vocab = 4000;
  const std::int64_t dim = 32;
  const at::Tensor x = randomFloat({rows, dim}, 30).requires_grad_();
  const at::Tensor w = randomFloat({vocab, dim}, 31).requires_grad_();
  const at::Tensor t = randomTargets(rows, vocab, 32);
  const std::uint64_t logits = static_cast<std::uint64_t>(rows * vocab) * 4;

  const auto peakOf = [&](const auto& step) {
    x.mutable_grad().reset();
    w.mutable_grad().reset();
    const std::uint64_t before = tracker.liveBytes();
    tracker.resetPeak();
    step();
    return tracker.peakBytes() - before;
  };
  const std::uint64_t plainPeak =
      peakOf([&] { ops::crossEntropy(at::linear(x, w), t).backward(); });
  EXPECT_GE(plainPeak, 3 * logits);
  // One chunk of logits (64 rows) plus dX and dW; the plain head holds 3 × [N, V].
  const std::uint64_t chunk = static_cast<std::uint64_t>(64 * vocab) * 4;
  const std::uint64_t grads = static_cast<std::uint64_t>((rows + vocab) * dim) * 4;
  for (const auto& [name, head] : chunkedHeads()) {
    const std::uint64_t peak = peakOf([&] { head(x, w, t, atenMatmulPath(), 64).backward(); });
    EXPECT_LE(peak, 2 * chunk + grads + 64 * 1024) << name;
    EXPECT_LT(peak, logits) << name;
  }
}

TEST(FusedHeadLoss, RefusesTargetsOutsideTheVocabularyNamingThem) {
  const at::Tensor x = randomFloat({4, 8}, 40);
  const at::Tensor w = randomFloat({10, 8}, 41);
  const at::Tensor t = at::tensor({1, 2, 10, 3}, at::kLong);
  try {
    (void)fused::headLoss(x, w, t, atenMatmulPath(), 2);
    FAIL() << "target 10 in a vocabulary of 10 was accepted";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("[0, 10), got [1, 10]"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)fused::headLoss(x, w, t.narrow(0, 0, 3), atenMatmulPath(), 2), c10::Error);
  EXPECT_THROW((void)fused::headLoss(x, w, t.clamp(0, 9), atenMatmulPath(), 0), c10::Error);
  EXPECT_THROW((void)fused::headLossRebuiltInBackward(x, w, t, atenMatmulPath(), 2), c10::Error);
}

}  // namespace
