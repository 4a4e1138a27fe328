// Rotary position embedding on consecutive pairs (2i, 2i+1), the layout of the
// original RoPE paper and of Meta's Llama code (HF's Llama rotates halves
// instead; the two differ by a fixed permutation of the head dimension). The
// angles are computed in double and rounded once to the tables' dtype, which
// may be wider than x (float32 tables for bf16 activations); the result has
// x's dtype.
//
// The rotation is written as x·C + swap(x)·S with C = (cos, cos) and
// S = (−sin, sin) per pair and swap exchanging the two members of each pair:
// the same products and sums as (e·cos − o·sin, e·sin + o·cos), so the same
// float results, but over whole contiguous tensors. Selecting the even and odd
// members as strided views and stacking them back cost about 10 % of a `small`
// training step (docs/PERF.md), mostly in the backward of the strided selects.
#include "ops/ops.hpp"

namespace tb::engine::ops {

RopeTables ropeTables(std::int64_t seq, std::int64_t headDim, double theta,
                      const at::TensorOptions& options) {
  const auto exact = at::TensorOptions().dtype(at::kDouble);
  const at::Tensor pairIndex = at::arange(headDim / 2, exact);
  const at::Tensor frequencies = at::pow(theta, pairIndex * (-2.0 / static_cast<double>(headDim)));
  const at::Tensor angles = at::outer(at::arange(seq, exact), frequencies);
  return {at::cos(angles).to(options), at::sin(angles).to(options)};
}

at::Tensor rope(const at::Tensor& x, const RopeTables& tables) {
  const auto seq = x.size(1);
  const auto half = x.size(3) / 2;
  const at::Tensor cos = tables.cos.narrow(0, 0, seq);
  const at::Tensor sin = tables.sin.narrow(0, 0, seq);
  // [seq, half] -> [seq, head_dim] interleaved, then [1, seq, 1, head_dim] to
  // broadcast over batch and heads.
  const at::Tensor pairCos = at::stack({cos, cos}, -1).flatten(1).unsqueeze(1).unsqueeze(0);
  const at::Tensor pairSin = at::stack({-sin, sin}, -1).flatten(1).unsqueeze(1).unsqueeze(0);
  const at::Tensor swapped =
      x.reshape({x.size(0), seq, x.size(2), half, 2}).flip(-1).reshape(x.sizes());
  return (x * pairCos + swapped * pairSin).to(x.scalar_type());
}

}  // namespace tb::engine::ops
