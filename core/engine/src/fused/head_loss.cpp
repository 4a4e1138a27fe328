// The output head fused with the cross-entropy. The plain head materialises
// the float32 logits [N, V], their log-softmax and its gradient (12 bytes per
// entry, the largest tensors of a small model's step); here only one chunk of
// `chunkRows` logit rows exists at a time, forward keeps one log-sum-exp per
// row, and backward recomputes each chunk's logits and turns them in place
// into the chunk's logit gradient, softmax − one-hot scaled by 1/N.
//
// The logits of both passes come from the run's MatmulPath (the same
// product, shape and weight layout as the plain head's linear, so the
// probed fastest path serves it). The two backward products are not
// linear-shaped: dX = dZ·W would need a transposed copy of W per chunk, and
// dW += dZᵀ·X accumulates into one [V, D] buffer, which MatmulPath cannot
// express without a [V, D] temporary per chunk that would cost back the
// memory the fusion saves; they run as at::mm_out / addmm_ (BLAS with
// transpose flags, writing in place).
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fused/fused_ops.hpp"

namespace tb::engine::fused {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Carries the (non-tensor) MatmulPath from forward to backward through the
// context's IValue map; the path outlives the step that uses it.
struct PathRef : torch::CustomClassHolder {
  explicit PathRef(const MatmulPath* p) : path(p) {}
  const MatmulPath* path;
};

void checkInputs(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& targets,
                 std::int64_t chunkRows) {
  TORCH_CHECK(x.scalar_type() == at::kFloat && weight.scalar_type() == at::kFloat &&
                  x.device().is_cpu() && weight.device().is_cpu(),
              "fused::headLoss takes float32 CPU x and weight, got ", x.scalar_type(), " and ",
              weight.scalar_type());
  TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && x.size(1) == weight.size(1),
              "fused::headLoss: x [N, D] and weight [V, D] expected, got x ", x.sizes(),
              ", weight ", weight.sizes());
  TORCH_CHECK(targets.scalar_type() == at::kLong && targets.dim() == 1 &&
                  targets.size(0) == x.size(0),
              "fused::headLoss: int64 targets [", x.size(0), "] expected, got ",
              targets.scalar_type(), " ", targets.sizes());
  TORCH_CHECK(x.size(0) > 0, "fused::headLoss: no rows to average over");
  TORCH_CHECK(chunkRows > 0, "fused::headLoss: chunkRows must be positive, got ", chunkRows);
  const std::int64_t vocab = weight.size(0);
  const auto [low, high] = at::aminmax(targets);
  TORCH_CHECK(low.item<std::int64_t>() >= 0 && high.item<std::int64_t>() < vocab,
              "fused::headLoss: targets must lie in [0, ", vocab, "), got [",
              low.item<std::int64_t>(), ", ", high.item<std::int64_t>(), "]");
}

// Per row of logits [rows, V]: the log-sum-exp into lse, and lse − z[target]
// (the row's loss) into rowLoss.
void chunkForward(const at::Tensor& logits, const std::int64_t* targets, float* lse,
                  double* rowLoss) {
  const std::int64_t vocab = logits.size(1);
  const float* z = logits.data_ptr<float>();
  at::parallel_for(0, logits.size(0), 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      const float* row = z + r * vocab;
      const float rowMax = *std::max_element(row, row + vocab);
      // A double sum: over tens of thousands of entries a float one drifts
      // by more than the parity tolerance.
      double sum = 0.0;
      for (std::int64_t c = 0; c < vocab; ++c) sum += std::exp(row[c] - rowMax);
      lse[r] = rowMax + static_cast<float>(std::log(sum));
      rowLoss[r] = static_cast<double>(lse[r]) - static_cast<double>(row[targets[r]]);
    }
  });
}

// logits [rows, V] become their gradient: (softmax − one-hot) · scale.
void chunkBackward(at::Tensor& logits, const std::int64_t* targets, const float* lse,
                   float scale) {
  const std::int64_t vocab = logits.size(1);
  float* z = logits.data_ptr<float>();
  at::parallel_for(0, logits.size(0), 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      float* row = z + r * vocab;
      for (std::int64_t c = 0; c < vocab; ++c) row[c] = std::exp(row[c] - lse[r]) * scale;
      row[targets[r]] -= scale;
    }
  });
}

class FusedHeadLoss : public torch::autograd::Function<FusedHeadLoss> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight,
                            const at::Tensor& targets, const MatmulPath* path,
                            std::int64_t chunkRows) {
    checkInputs(x, weight, targets, chunkRows);
    const at::Tensor xc = x.contiguous();
    const at::Tensor tc = targets.contiguous();
    const std::int64_t rows = xc.size(0);
    at::Tensor lse = at::empty({rows}, xc.options());
    std::vector<double> rowLoss(static_cast<std::size_t>(rows));
    for (std::int64_t c0 = 0; c0 < rows; c0 += chunkRows) {
      const std::int64_t n = std::min(chunkRows, rows - c0);
      const at::Tensor logits = path->linear(xc.narrow(0, c0, n), weight, {}).contiguous();
      chunkForward(logits, tc.data_ptr<std::int64_t>() + c0, lse.data_ptr<float>() + c0,
                   rowLoss.data() + c0);
    }
    double total = 0.0;
    for (const double loss : rowLoss) total += loss;  // in order: deterministic
    ctx->save_for_backward({xc, weight, tc, lse});
    ctx->saved_data["path"] = c10::IValue::make_capsule(c10::make_intrusive<PathRef>(path));
    ctx->saved_data["chunk_rows"] = chunkRows;
    return at::scalar_tensor(total / static_cast<double>(rows), xc.options());
  }

  static variable_list backward(AutogradContext* ctx, variable_list gradOutputs) {
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor& x = saved[0];
    const at::Tensor& weight = saved[1];
    const auto* targets = saved[2].data_ptr<std::int64_t>();
    const auto* lse = saved[3].data_ptr<float>();
    const auto holder = ctx->saved_data["path"].toCapsule();
    const MatmulPath* path = static_cast<const PathRef*>(holder.get())->path;
    const std::int64_t chunkRows = ctx->saved_data["chunk_rows"].toInt();
    const std::int64_t rows = x.size(0);
    const auto scale =
        static_cast<float>(gradOutputs[0].item<double>() / static_cast<double>(rows));
    const bool wantX = ctx->needs_input_grad(0);
    const bool wantWeight = ctx->needs_input_grad(1);
    at::Tensor dx = wantX ? at::empty_like(x) : at::Tensor();
    at::Tensor dw = wantWeight ? at::zeros_like(weight) : at::Tensor();
    if (!wantX && !wantWeight) return {dx, dw, at::Tensor(), at::Tensor(), at::Tensor()};
    for (std::int64_t c0 = 0; c0 < rows; c0 += chunkRows) {
      const std::int64_t n = std::min(chunkRows, rows - c0);
      const at::Tensor xChunk = x.narrow(0, c0, n);
      at::Tensor dLogits = path->linear(xChunk, weight, {}).contiguous();
      chunkBackward(dLogits, targets + c0, lse + c0, scale);
      if (wantX) {
        at::Tensor dxChunk = dx.narrow(0, c0, n);
        at::mm_out(dxChunk, dLogits, weight);
      }
      if (wantWeight) dw.addmm_(dLogits.t(), xChunk);
    }
    return {dx, dw, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor headLoss(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& targets,
                    const MatmulPath& path, std::int64_t chunkRows) {
  return FusedHeadLoss::apply(x, weight, targets, &path, chunkRows);
}

}  // namespace tb::engine::fused
