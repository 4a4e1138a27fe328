// The output head fused with the cross-entropy. The plain head materialises
// the float32 logits [N, V], their log-softmax and its gradient (12 bytes per
// entry, the largest tensors of a small model's step); here only one chunk of
// `chunkRows` logit rows exists at a time. The loss is the last op of the
// step, so when gradients are wanted the forward pass finishes the head's
// backward too: each chunk's logits become, in place, the chunk's logit
// gradient (softmax − one-hot)/N and are multiplied into dX and dW at once,
// and backward only scales the two by the loss's incoming gradient (1 in
// training). Recomputing the logits in backward instead, as a separate
// backward would have to, costs a fourth product the size of the head's
// three: a quarter of the head's products once it is added. That is what the
// plain step's `head` recompute module does (RebuiltHeadLoss below): it is
// recomputation, priced as such, and leaves the gradients-in-forward fusion
// to the compiled step, which the ablation credits to CompilerOpt.
//
// The logits come from the run's MatmulPath (the same product, shape and
// weight layout as the plain head's linear, so the probed fastest path
// serves it). The gradient products are not linear-shaped: dX = dZ·W would
// need a transposed copy of W per chunk, and dW += dZᵀ·X accumulates into one
// [V, D] buffer, which MatmulPath cannot express without a [V, D] temporary
// per chunk; they run as GEMMs with transpose flags writing in place
// (matmul/gemm).
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fused/fused_ops.hpp"
#include "matmul/gemm.hpp"
#include "fused/vector_kernels.hpp"
#include "model/op_scope.hpp"

namespace tb::engine::fused {
namespace {

using cpu::gemm;
using cpu::Op;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

void checkInputs(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& targets,
                 std::int64_t chunkRows) {
  TORCH_CHECK(x.scalar_type() == at::kFloat && weight.scalar_type() == at::kFloat &&
                  x.device().is_cpu() && weight.device().is_cpu(),
              "fused::headLoss takes float32 CPU x and weight, got ", x.scalar_type(), " and ",
              weight.scalar_type());
  TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && x.size(1) == weight.size(1),
              "fused::headLoss: x [N, D] and weight [V, D] expected, got x ", x.sizes(),
              ", weight ", weight.sizes());
  TORCH_CHECK(
      targets.scalar_type() == at::kLong && targets.dim() == 1 && targets.size(0) == x.size(0),
      "fused::headLoss: int64 targets [", x.size(0), "] expected, got ", targets.scalar_type(), " ",
      targets.sizes());
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
  const cpu::VectorKernels& vec = cpu::vectorKernels();
  at::parallel_for(0, logits.size(0), 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      const float* row = z + r * vocab;
      const float rowMax = vec.maxOf(row, vocab);
      // A double sum: over tens of thousands of entries a float one drifts
      // by more than the parity tolerance.
      const double sum = vec.sumExpShifted(row, vocab, rowMax);
      lse[r] = rowMax + static_cast<float>(std::log(sum));
      rowLoss[r] = static_cast<double>(lse[r]) - static_cast<double>(row[targets[r]]);
    }
  });
}

// logits [rows, V] become their gradient: (softmax − one-hot) · scale.
void chunkBackward(at::Tensor& logits, const std::int64_t* targets, const float* lse, float scale) {
  const std::int64_t vocab = logits.size(1);
  float* z = logits.data_ptr<float>();
  const cpu::VectorKernels& vec = cpu::vectorKernels();
  at::parallel_for(0, logits.size(0), 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      float* row = z + r * vocab;
      vec.expShiftedScaled(row, vocab, lse[r], scale);
      row[targets[r]] -= scale;
    }
  });
}

class FusedHeadLoss : public torch::autograd::Function<FusedHeadLoss> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight,
                            const at::Tensor& targets, const MatmulPath* path,
                            std::int64_t chunkRows, bool wantX, bool wantWeight) {
    checkInputs(x, weight, targets, chunkRows);
    const at::Tensor xc = x.contiguous();
    const at::Tensor wc = weight.contiguous();  // a no-op for a parameter
    const at::Tensor tc = targets.contiguous();
    const std::int64_t rows = xc.size(0);
    const std::int64_t dim = xc.size(1);
    const std::int64_t vocab = wc.size(0);
    const auto* target = tc.data_ptr<std::int64_t>();
    at::Tensor lse = at::empty({rows}, xc.options());
    at::Tensor dx = wantX ? at::empty_like(xc) : at::Tensor();
    at::Tensor dw = wantWeight ? at::zeros_like(wc) : at::Tensor();
    const auto scale = static_cast<float>(1.0 / static_cast<double>(rows));
    std::vector<double> rowLoss(static_cast<std::size_t>(rows));
    for (std::int64_t c0 = 0; c0 < rows; c0 += chunkRows) {
      const std::int64_t n = std::min(chunkRows, rows - c0);
      const at::Tensor xChunk = xc.narrow(0, c0, n);
      at::Tensor logits = path->linear(xChunk, wc, {}).contiguous();
      chunkForward(logits, target + c0, lse.data_ptr<float>() + c0, rowLoss.data() + c0);
      if (!wantX && !wantWeight) continue;
      chunkBackward(logits, target + c0, lse.data_ptr<float>() + c0, scale);
      const float* dz = logits.data_ptr<float>();
      if (wantX) {  // dX[chunk] = dZ · W
        gemm(Op::Plain, Op::Plain, n, dim, vocab, 1.0F, dz, vocab, wc.data_ptr<float>(), dim, 0.0F,
             dx.data_ptr<float>() + c0 * dim, dim);
      }
      if (wantWeight) {  // dW += dZᵀ · X[chunk]
        gemm(Op::Transposed, Op::Plain, vocab, dim, n, 1.0F, dz, vocab, xChunk.data_ptr<float>(),
             dim, 1.0F, dw.data_ptr<float>(), dim);
      }
    }
    double total = 0.0;
    for (const double loss : rowLoss) total += loss;  // in order: deterministic
    ctx->save_for_backward({dx, dw});
    return at::scalar_tensor(total / static_cast<double>(rows), xc.options());
  }

  static variable_list backward(AutogradContext* ctx, variable_list gradOutputs) {
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor& g = gradOutputs[0];
    const auto scaled = [&g](const at::Tensor& gradient) {
      return gradient.defined() ? gradient * g : at::Tensor();
    };
    const at::Tensor dx = ctx->needs_input_grad(0) ? scaled(saved[0]) : at::Tensor();
    const at::Tensor dw = ctx->needs_input_grad(1) ? scaled(saved[1]) : at::Tensor();
    return {dx, dw, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

/// The plain step's `head` recompute module (--recompute selective:...,head):
/// the same chunked loss, but forward keeps only x, the weight, the targets
/// and the row log-sum-exps, and backward rebuilds each chunk's logits to
/// turn them into dZ, the fourth product FusedHeadLoss avoids.
/// AutogradContext keeps only IValues, so the path travels in a capsule.
struct RebuildPlan final : torch::CustomClassHolder {
  RebuildPlan(const MatmulPath& matmulPath, std::int64_t rows)
      : path(&matmulPath), chunkRows(rows) {}
  const MatmulPath* path;
  std::int64_t chunkRows;
};

class RebuiltHeadLoss : public torch::autograd::Function<RebuiltHeadLoss> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const c10::intrusive_ptr<RebuildPlan>& plan,
                            const at::Tensor& x, const at::Tensor& weight,
                            const at::Tensor& targets) {
    checkInputs(x, weight, targets, plan->chunkRows);
    const at::Tensor xc = x.contiguous();
    const at::Tensor wc = weight.contiguous();
    const at::Tensor tc = targets.contiguous();
    const std::int64_t rows = xc.size(0);
    at::Tensor lse = at::empty({rows}, xc.options());
    std::vector<double> rowLoss(static_cast<std::size_t>(rows));
    for (std::int64_t c0 = 0; c0 < rows; c0 += plan->chunkRows) {
      const std::int64_t n = std::min(plan->chunkRows, rows - c0);
      const at::Tensor logits = plan->path->linear(xc.narrow(0, c0, n), wc, {}).contiguous();
      chunkForward(logits, tc.data_ptr<std::int64_t>() + c0, lse.data_ptr<float>() + c0,
                   rowLoss.data() + c0);
    }
    double total = 0.0;
    for (const double loss : rowLoss) total += loss;
    ctx->save_for_backward({xc, wc, tc, lse});
    ctx->saved_data["plan"] = c10::IValue::make_capsule(plan);
    return at::scalar_tensor(total / static_cast<double>(rows), xc.options());
  }

  static variable_list backward(AutogradContext* ctx, variable_list gradOutputs) {
    const auto plan =
        c10::static_intrusive_pointer_cast<RebuildPlan>(ctx->saved_data["plan"].toCapsule());
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor& xc = saved[0];
    const at::Tensor& wc = saved[1];
    const auto* target = saved[2].data_ptr<std::int64_t>();
    const float* lse = saved[3].data_ptr<float>();
    // needs_input_grad counts tensor inputs only; the returned list has a
    // slot for every input, the plan's first.
    const bool wantX = ctx->needs_input_grad(0);
    const bool wantWeight = ctx->needs_input_grad(1);
    variable_list grads(4);
    if (!gradOutputs[0].defined() || (!wantX && !wantWeight)) return grads;
    const std::int64_t rows = xc.size(0);
    const std::int64_t dim = xc.size(1);
    const std::int64_t vocab = wc.size(0);
    // The incoming gradient (1 in training) folds into dZ's scale, so dX and
    // dW come out final without another pass over them.
    const auto scale =
        static_cast<float>(gradOutputs[0].item<double>() / static_cast<double>(rows));
    at::Tensor dx = wantX ? at::empty_like(xc) : at::Tensor();
    at::Tensor dw = wantWeight ? at::empty_like(wc) : at::Tensor();
    for (std::int64_t c0 = 0; c0 < rows; c0 += plan->chunkRows) {
      const std::int64_t n = std::min(plan->chunkRows, rows - c0);
      const at::Tensor xChunk = xc.narrow(0, c0, n);
      at::Tensor logits = plan->path->linear(xChunk, wc, {}).contiguous();
      chunkBackward(logits, target + c0, lse + c0, scale);
      const float* dz = logits.data_ptr<float>();
      if (wantX) {  // dX[chunk] = dZ · W
        gemm(Op::Plain, Op::Plain, n, dim, vocab, 1.0F, dz, vocab, wc.data_ptr<float>(), dim, 0.0F,
             dx.data_ptr<float>() + c0 * dim, dim);
      }
      if (wantWeight) {  // dW (+)= dZᵀ · X[chunk]; the first chunk writes, the rest add
        gemm(Op::Transposed, Op::Plain, vocab, dim, n, 1.0F, dz, vocab, xChunk.data_ptr<float>(),
             dim, c0 == 0 ? 0.0F : 1.0F, dw.data_ptr<float>(), dim);
      }
    }
    grads[1] = dx;
    grads[2] = dw;
    return grads;
  }
};

}  // namespace

at::Tensor headLossRebuiltInBackward(const at::Tensor& x, const at::Tensor& weight,
                                     const at::Tensor& targets, const MatmulPath& path,
                                     std::int64_t chunkRows) {
  const OpScope scope("tb::fused::headLossRebuiltInBackward");
  return RebuiltHeadLoss::apply(c10::make_intrusive<RebuildPlan>(path, chunkRows), x, weight,
                                targets);
}

at::Tensor headLoss(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& targets,
                    const MatmulPath& path, std::int64_t chunkRows) {
  const OpScope scope("tb::fused::headLoss");
  // Decided here: inside forward, autograd has switched gradient mode off.
  const bool recording = at::GradMode::is_enabled();
  return FusedHeadLoss::apply(x, weight, targets, &path, chunkRows, recording && x.requires_grad(),
                              recording && weight.requires_grad());
}

}  // namespace tb::engine::fused
