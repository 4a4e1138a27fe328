// RMSNorm as in Llama: no mean subtraction, no bias. Half-precision inputs
// are normalised in float32 (their squares overflow or lose precision
// otherwise) and cast back; float32 and double stay as they are.
#include "ops/ops.hpp"

namespace tb::engine::ops {

at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  const auto statsType = at::promote_types(x.scalar_type(), at::kFloat);
  const at::Tensor wide = x.to(statsType);
  const at::Tensor inverseRms = at::rsqrt(wide.pow(2).mean(-1, /*keepdim=*/true) + eps);
  return (wide * inverseRms).to(x.scalar_type()) * weight.to(x.scalar_type());
}

}  // namespace tb::engine::ops
