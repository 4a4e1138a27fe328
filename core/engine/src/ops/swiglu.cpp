// The SwiGLU feed-forward of Llama: a SiLU-gated product of two projections,
// projected back. Weights are [out, in] like nn.Linear so that weights load
// from PyTorch checkpoints unchanged.
#include "ops/ops.hpp"

namespace tb::engine::ops {

at::Tensor swiGluGate(const at::Tensor& a, const at::Tensor& b) { return at::silu(a) * b; }

at::Tensor swiGlu(const at::Tensor& x, const at::Tensor& w1, const at::Tensor& w2,
                  const at::Tensor& w3) {
  return at::linear(swiGluGate(at::linear(x, w1), at::linear(x, w3)), w2);
}

}  // namespace tb::engine::ops
