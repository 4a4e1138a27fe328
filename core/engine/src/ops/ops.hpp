// The reference operators of the decoder, one source file each, written as
// plain LibTorch ops whose autograd gives the backward pass. They are generic
// over dtype (double for gradient checks, float or bf16 for training) and are
// the ground truth that the fused kernels (fused/) are compared against.
#pragma once

#include <ATen/ATen.h>

namespace tb::engine::ops {

/// cos and sin of the rotary angles, [seq, head_dim / 2] each.
struct RopeTables {
  at::Tensor cos;
  at::Tensor sin;
};

/// x · rsqrt(mean(x²) + eps) · weight over the last dimension; statistics in
/// at least float32.
at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps);

/// Angles position · theta^(-2i / head_dim) for i < head_dim / 2, with `options`.
RopeTables ropeTables(std::int64_t seq, std::int64_t headDim, double theta,
                      const at::TensorOptions& options);

/// Rotates consecutive pairs (2i, 2i+1) of x [batch, seq, heads, head_dim].
at::Tensor rope(const at::Tensor& x, const RopeTables& tables);

/// Causal grouped-query attention. q [B, T, H, hd], k and v [B, T, KV, hd];
/// KV heads are repeated to the H query heads (query head h reads KV head
/// h / (H / KV)); scores are scaled by 1/sqrt(hd). Returns [B, T, H·hd].
at::Tensor causalAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v);

/// The same attention without repeating K and V: each KV head serves its group
/// of query heads in place. Equal to causalAttention up to rounding.
at::Tensor causalAttentionGrouped(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v);

/// Query heads (or their gradients) [B, T, KV·G, hd], or [B, T, KV·G·hd], in
/// the grouped products' layout [B, KV, G·T, hd]: query head h belongs to KV
/// head h / G, as with repeat_interleave, at row (h mod G)·T + t.
at::Tensor toGroupedRows(const at::Tensor& t, std::int64_t kvHeads, std::int64_t headDim);

/// The inverse of toGroupedRows for sequences of `seq`: [B, T, KV·G, hd].
at::Tensor fromGroupedRows(const at::Tensor& t, std::int64_t seq);

/// q in grouped rows, multiplied by the scores' scale 1/sqrt(hd): scaling the
/// queries costs a T/hd-th of scaling the scores [B, KV, G·T, T], and the
/// scaled queries are also what the keys' gradient is a product with.
at::Tensor scaledGroupedQueries(const at::Tensor& q, std::int64_t kvHeads);

/// causalAttentionGrouped's first half: the probabilities [B, KV, G·T, T],
/// row g·T + t holding query position t of head kv·G + g (G = H / KV).
at::Tensor groupedAttentionWeights(const at::Tensor& q, const at::Tensor& k);

/// The same from queries already through scaledGroupedQueries, in
/// `weightsType` (q's dtype); the softmax runs in at least float32.
at::Tensor groupedAttentionWeightsOf(const at::Tensor& scaledQueries, const at::Tensor& k,
                                     at::ScalarType weightsType);

/// Its second half: weights · V, back in [B, T, H·hd].
at::Tensor groupedAttentionOutput(const at::Tensor& weights, const at::Tensor& v);

/// silu(a) * b: the gate of SwiGLU between its projections.
at::Tensor swiGluGate(const at::Tensor& a, const at::Tensor& b);

/// W2 · (silu(W1 · x) * W3 · x) with nn.Linear-shaped weights [out, in].
at::Tensor swiGlu(const at::Tensor& x, const at::Tensor& w1, const at::Tensor& w2,
                  const at::Tensor& w3);

/// Mean cross-entropy of logits [N, V] against targets [N] (int64).
at::Tensor crossEntropy(const at::Tensor& logits, const at::Tensor& targets);

}  // namespace tb::engine::ops
