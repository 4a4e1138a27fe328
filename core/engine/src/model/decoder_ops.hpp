// The seam between the model and its kernels: a block calls its operators
// through this interface, so a compiled path (fused kernels) replaces the
// reference ops without touching the model, and both can run side by side in
// parity tests. Every matrix product goes through linear() (and so through the
// run's MatmulPath), including those inside swiGlu and headLoss.
#pragma once

#include <memory>

#include "matmul/matmul_path.hpp"
#include "ops/ops.hpp"

namespace tb::engine {

/// The operators a decoder block and the loss are made of.
class DecoderOps {
 public:
  virtual ~DecoderOps() = default;
  /// x [..., in] · w[out, in]ᵀ (+ bias when defined).
  [[nodiscard]] virtual at::Tensor linear(const at::Tensor& x, const at::Tensor& w,
                                          const at::Tensor& bias) const = 0;
  [[nodiscard]] virtual at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& w) const = 0;
  [[nodiscard]] virtual at::Tensor rope(const at::Tensor& x,
                                        const ops::RopeTables& tables) const = 0;
  [[nodiscard]] virtual at::Tensor attention(const at::Tensor& q, const at::Tensor& k,
                                             const at::Tensor& v) const = 0;
  /// attention(q, k, v) keeping only q, k and v for backward, which rebuilds
  /// the rest (selective recompute of the attention core). By default the
  /// whole of attention() runs again (recomputeInBackward).
  [[nodiscard]] virtual at::Tensor attentionRebuiltInBackward(const at::Tensor& q,
                                                              const at::Tensor& k,
                                                              const at::Tensor& v) const;
  /// silu(a) * b, the gate between SwiGLU's products.
  [[nodiscard]] virtual at::Tensor swiGluGate(const at::Tensor& a, const at::Tensor& b) const = 0;
  [[nodiscard]] virtual at::Tensor swiGlu(const at::Tensor& x, const at::Tensor& w1,
                                          const at::Tensor& w2, const at::Tensor& w3) const = 0;
  /// Mean next-token cross-entropy of the output head: x [N, dim] (after the
  /// final norm), weight [vocab, dim], targets [N] (int64). Taking the head
  /// and the loss together lets a fused path avoid materialising the logits.
  [[nodiscard]] virtual at::Tensor headLoss(const at::Tensor& x, const at::Tensor& weight,
                                            const at::Tensor& targets) const = 0;
  /// headLoss keeping only x, the weight, the targets and a statistic per row
  /// for backward, which rebuilds the logits a chunk at a time (the `head`
  /// recompute module). By default: fused::headLossRebuiltInBackward on
  /// float32 CPU tensors; other dtypes and devices have no chunked head yet
  /// and run headLoss, and the predictor prices them that way.
  [[nodiscard]] virtual at::Tensor headLossRebuiltInBackward(const at::Tensor& x,
                                                             const at::Tensor& weight,
                                                             const at::Tensor& targets) const;
  /// Where linear() runs, for gradients formed outside autograd (recompute.hpp).
  [[nodiscard]] virtual const MatmulPath& matmulPath() const = 0;
};

/// The plain LibTorch reference operators of ops/ on ATen's matmul path, with
/// K and V repeated to the query heads: the ground truth of every parity test.
[[nodiscard]] const DecoderOps& referenceOps();

/// The reference operators on `path`; `gqaInPlace` reads each KV head in place
/// (ops::causalAttentionGrouped) instead of repeating it. `path` must outlive
/// the result.
[[nodiscard]] std::unique_ptr<DecoderOps> makeReferenceOps(const MatmulPath& path, bool gqaInPlace);

}  // namespace tb::engine
