// fused::causalAttention as a custom autograd function. What it saves is the
// point: q, k, v (its inputs, alive anyway) and one float per query row,
// O(B·H·T), where the plain op keeps the [B, H, T, T]
// probabilities, its repeated K and V and the causal mask. The kernels live
// in attention_kernels.cpp.
#include <torch/csrc/autograd/custom_function.h>

#include "fused/attention_kernels.hpp"
#include "fused/fused_ops.hpp"
#include "model/op_scope.hpp"

namespace tb::engine::fused {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class FusedCausalAttention : public torch::autograd::Function<FusedCausalAttention> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& q, const at::Tensor& k,
                            const at::Tensor& v) {
    const detail::AttentionShape shape = detail::attentionShape(q, k, v);
    const at::Tensor qc = q.contiguous();
    const at::Tensor kc = k.contiguous();
    const at::Tensor vc = v.contiguous();
    detail::AttentionForward result = detail::attentionForward(shape, qc, kc, vc);
    ctx->save_for_backward({qc, kc, vc, result.lse});
    return result.out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list gradOutputs) {
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor& q = saved[0];
    const detail::AttentionShape shape = detail::attentionShape(q, saved[1], saved[2]);
    const at::Tensor dOut = gradOutputs[0].contiguous();
    detail::AttentionGradients grads =
        detail::attentionBackward(shape, q, saved[1], saved[2], saved[3], dOut);
    return {grads.dq, grads.dk, grads.dv};
  }
};

}  // namespace

at::Tensor causalAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  const OpScope scope("tb::fused::causalAttention");
  return FusedCausalAttention::apply(q, k, v);
}

}  // namespace tb::engine::fused
