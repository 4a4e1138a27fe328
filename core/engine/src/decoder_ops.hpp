// The seam between the model and its kernels: a block calls its operators
// through this interface, so a compiled path (fused kernels) replaces the
// reference ops without touching the model, and both can run side by side in
// parity tests.
#pragma once

#include "ops/ops.hpp"

namespace tb::engine {

/// The operators a decoder block and the loss are made of.
class DecoderOps {
 public:
  virtual ~DecoderOps() = default;
  [[nodiscard]] virtual at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& w) const = 0;
  [[nodiscard]] virtual at::Tensor rope(const at::Tensor& x,
                                        const ops::RopeTables& tables) const = 0;
  [[nodiscard]] virtual at::Tensor attention(const at::Tensor& q, const at::Tensor& k,
                                             const at::Tensor& v) const = 0;
  [[nodiscard]] virtual at::Tensor swiGlu(const at::Tensor& x, const at::Tensor& w1,
                                          const at::Tensor& w2, const at::Tensor& w3) const = 0;
  [[nodiscard]] virtual at::Tensor crossEntropy(const at::Tensor& logits,
                                                const at::Tensor& targets) const = 0;
};

/// The plain LibTorch reference operators of ops/.
[[nodiscard]] const DecoderOps& referenceOps();

}  // namespace tb::engine
