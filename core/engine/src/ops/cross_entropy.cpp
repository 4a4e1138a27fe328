// Mean next-token cross-entropy as PyTorch's F.cross_entropy computes it,
// nll_loss over log_softmax, in at least float32 whatever the compute dtype, so
// a bf16 run and a float32 run report comparable losses. log_softmax has a
// one-pass backward kernel; the earlier log-sum-exp-minus-target-logit form
// took three more passes over the [tokens, vocab] logits in backward (sub,
// exp, mul) and was one of the reasons the engine trailed eager PyTorch.
#include "ops/ops.hpp"

namespace tb::engine::ops {

at::Tensor crossEntropy(const at::Tensor& logits, const at::Tensor& targets) {
  const auto lossType = at::promote_types(logits.scalar_type(), at::kFloat);
  return at::nll_loss(at::log_softmax(logits.to(lossType), -1), targets);
}

}  // namespace tb::engine::ops
