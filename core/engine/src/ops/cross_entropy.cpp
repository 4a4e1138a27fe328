// Mean next-token cross-entropy written out as log-sum-exp minus the target
// logit, in at least float32 whatever the compute dtype, so a bf16 run and a
// float32 run report comparable losses.
#include "ops/ops.hpp"

namespace tb::engine::ops {

at::Tensor crossEntropy(const at::Tensor& logits, const at::Tensor& targets) {
  const auto lossType = at::promote_types(logits.scalar_type(), at::kFloat);
  const at::Tensor wide = logits.to(lossType);
  const at::Tensor logNormaliser = at::logsumexp(wide, -1);
  const at::Tensor targetLogit = wide.gather(-1, targets.unsqueeze(-1)).squeeze(-1);
  return (logNormaliser - targetLogit).mean();
}

}  // namespace tb::engine::ops
