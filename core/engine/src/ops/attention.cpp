// Causal grouped-query attention in its textbook form: scores, mask, softmax,
// weighted sum. K and V are repeated with repeat_interleave, which copies; the
// tuned runtime of a later stage avoids the copy, and this stays the reference.
// The softmax runs in at least float32.
#include <cmath>
#include <limits>

#include "ops/ops.hpp"

namespace tb::engine::ops {

at::Tensor causalAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  const auto batch = q.size(0);
  const auto seq = q.size(1);
  const auto heads = q.size(2);
  const auto headDim = q.size(3);
  const auto groups = heads / k.size(2);

  const at::Tensor queries = q.transpose(1, 2);  // [B, H, T, hd]
  const at::Tensor keys = k.transpose(1, 2).repeat_interleave(groups, 1);
  const at::Tensor values = v.transpose(1, 2).repeat_interleave(groups, 1);

  const double scale = 1.0 / std::sqrt(static_cast<double>(headDim));
  const at::Tensor scores = at::matmul(queries, keys.transpose(-2, -1)) * scale;
  const at::Tensor future =
      at::ones({seq, seq}, at::TensorOptions().dtype(at::kBool).device(q.device())).triu(1);
  const auto softmaxType = at::promote_types(q.scalar_type(), at::kFloat);
  const at::Tensor masked =
      scores.to(softmaxType).masked_fill(future, -std::numeric_limits<double>::infinity());
  const at::Tensor weights = at::softmax(masked, -1).to(q.scalar_type());
  return at::matmul(weights, values).transpose(1, 2).reshape({batch, seq, heads * headDim});
}

}  // namespace tb::engine::ops
