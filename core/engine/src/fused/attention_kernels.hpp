// The CPU kernels behind fused::causalAttention, apart from its autograd
// wrapper so that the wrapper reads as the contract (what is saved, what is
// returned) and the kernels as the arithmetic. Both are flash-attention style:
// query tiles against the keys up to their diagonal, in per-thread buffers, so
// no T×T tensor exists.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

namespace tb::engine::fused::detail {

/// The dimensions every kernel loop needs, read once from q [B, T, H, hd]
/// and k [B, T, KV, hd].
struct AttentionShape {
  std::int64_t batch = 0;
  std::int64_t seq = 0;
  std::int64_t heads = 0;
  std::int64_t kvHeads = 0;
  std::int64_t headDim = 0;
  float scale = 1.0F;  ///< 1/sqrt(hd)

  [[nodiscard]] std::int64_t groups() const { return heads / kvHeads; }
};

/// Checks dtype, device, ranks and the head grouping; the message names the
/// offending shape. Returns the shape of contiguous q, k, v.
[[nodiscard]] AttentionShape attentionShape(const at::Tensor& q, const at::Tensor& k,
                                            const at::Tensor& v);

/// The forward pass's results: the output [B, T, H·hd] and the natural-log
/// log-sum-exp of each query row's scaled scores [B, H, T].
struct AttentionForward {
  at::Tensor out;
  at::Tensor lse;
};

/// q, k, v contiguous float32.
[[nodiscard]] AttentionForward attentionForward(const AttentionShape& shape, const at::Tensor& q,
                                                const at::Tensor& k, const at::Tensor& v);

/// Gradients of q, k, v from the inputs, the saved log-sum-exp and the
/// output's gradient (all contiguous float32; dOut [B, T, H·hd]).
struct AttentionGradients {
  at::Tensor dq;
  at::Tensor dk;
  at::Tensor dv;
};

[[nodiscard]] AttentionGradients attentionBackward(const AttentionShape& shape, const at::Tensor& q,
                                                   const at::Tensor& k, const at::Tensor& v,
                                                   const at::Tensor& lse, const at::Tensor& dOut);

}  // namespace tb::engine::fused::detail
