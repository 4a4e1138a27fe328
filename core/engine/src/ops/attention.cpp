// Causal grouped-query attention in its textbook form: scores, mask, softmax,
// weighted sum. causalAttention repeats K and V with repeat_interleave, which
// copies; it is the reference and the stock runtime's path.
// causalAttentionGrouped folds each KV head's group of query heads into the
// rows of one product instead, so K and V are read in place. The softmax runs
// in at least float32 in both.
#include <cmath>
#include <limits>

#include "ops/ops.hpp"

namespace tb::engine::ops {

namespace {

at::Tensor maskedSoftmax(const at::Tensor& scores, const at::Tensor& future,
                         at::ScalarType outType) {
  const auto softmaxType = at::promote_types(scores.scalar_type(), at::kFloat);
  const at::Tensor masked =
      scores.to(softmaxType).masked_fill(future, -std::numeric_limits<double>::infinity());
  return at::softmax(masked, -1).to(outType);
}

at::Tensor futureMask(std::int64_t seq, const c10::Device& device) {
  return at::ones({seq, seq}, at::TensorOptions().dtype(at::kBool).device(device)).triu(1);
}

}  // namespace

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
  const at::Tensor weights = maskedSoftmax(scores, futureMask(seq, q.device()), q.scalar_type());
  return at::matmul(weights, values).transpose(1, 2).reshape({batch, seq, heads * headDim});
}

at::Tensor toGroupedRows(const at::Tensor& t, std::int64_t kvHeads, std::int64_t headDim) {
  const auto batch = t.size(0);
  const auto seq = t.size(1);
  const auto perPosition = t.dim() == 4 ? t.size(2) * t.size(3) : t.size(2);
  const auto groups = perPosition / (kvHeads * headDim);
  // reshape, not view: q may arrive as a strided view (a fused RoPE's output).
  return t.reshape({batch, seq, kvHeads, groups, headDim})
      .permute({0, 2, 3, 1, 4})
      .reshape({batch, kvHeads, groups * seq, headDim});
}

at::Tensor fromGroupedRows(const at::Tensor& t, std::int64_t seq) {
  const auto batch = t.size(0);
  const auto kvHeads = t.size(1);
  const auto groups = t.size(2) / seq;
  const auto headDim = t.size(3);
  return t.reshape({batch, kvHeads, groups, seq, headDim})
      .permute({0, 3, 1, 2, 4})
      .reshape({batch, seq, kvHeads * groups, headDim});
}

at::Tensor scaledGroupedQueries(const at::Tensor& q, std::int64_t kvHeads) {
  const auto headDim = q.size(3);
  return toGroupedRows(q, kvHeads, headDim) * (1.0 / std::sqrt(static_cast<double>(headDim)));
}

at::Tensor groupedAttentionWeights(const at::Tensor& q, const at::Tensor& k) {
  return groupedAttentionWeightsOf(scaledGroupedQueries(q, k.size(2)), k, q.scalar_type());
}

at::Tensor groupedAttentionWeightsOf(const at::Tensor& scaledQueries, const at::Tensor& k,
                                     at::ScalarType weightsType) {
  const auto seq = k.size(1);
  const auto groups = scaledQueries.size(2) / seq;
  const at::Tensor keys = k.transpose(1, 2);  // [B, KV, T, hd], a view
  const auto softmaxType = at::promote_types(weightsType, at::kFloat);
  // The product's result is this function's own temporary and nothing saves
  // it for backward (the product keeps its inputs), so the mask goes in in
  // place rather than through a third [B, KV, G·T, T] buffer.
  at::Tensor scores = at::matmul(scaledQueries, keys.transpose(-2, -1)).to(softmaxType);
  scores.masked_fill_(futureMask(seq, k.device()).repeat({groups, 1}),
                      -std::numeric_limits<double>::infinity());
  return at::softmax(scores, -1).to(weightsType);
}

at::Tensor groupedAttentionOutput(const at::Tensor& weights, const at::Tensor& v) {
  const at::Tensor heads = fromGroupedRows(at::matmul(weights, v.transpose(1, 2)), v.size(1));
  return heads.reshape({heads.size(0), heads.size(1), heads.size(2) * heads.size(3)});
}

at::Tensor causalAttentionGrouped(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  return groupedAttentionOutput(groupedAttentionWeights(q, k), v);
}

}  // namespace tb::engine::ops
