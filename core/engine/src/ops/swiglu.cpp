// The SwiGLU feed-forward of Llama: a SiLU-gated product of two projections,
// projected back. Weights are [out, in] like nn.Linear so that weights load
// from PyTorch checkpoints unchanged.
#include "ops/ops.hpp"

namespace tb::engine::ops {

at::Tensor swiGlu(const at::Tensor& x, const at::Tensor& w1, const at::Tensor& w2,
                  const at::Tensor& w3) {
  const at::Tensor gate = at::silu(at::linear(x, w1));
  return at::linear(gate * at::linear(x, w3), w2);
}

}  // namespace tb::engine::ops
