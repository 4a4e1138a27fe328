// Binds the reference operator functions to the DecoderOps interface.
#include "decoder_ops.hpp"

#include "tb/engine/model.hpp"

namespace tb::engine {
namespace {

class ReferenceOps final : public DecoderOps {
 public:
  at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& w) const override {
    return ops::rmsNorm(x, w, kNormEpsilon);
  }
  at::Tensor rope(const at::Tensor& x, const ops::RopeTables& tables) const override {
    return ops::rope(x, tables);
  }
  at::Tensor attention(const at::Tensor& q, const at::Tensor& k,
                       const at::Tensor& v) const override {
    return ops::causalAttention(q, k, v);
  }
  at::Tensor swiGlu(const at::Tensor& x, const at::Tensor& w1, const at::Tensor& w2,
                    const at::Tensor& w3) const override {
    return ops::swiGlu(x, w1, w2, w3);
  }
  at::Tensor crossEntropy(const at::Tensor& logits, const at::Tensor& targets) const override {
    return ops::crossEntropy(logits, targets);
  }
};

}  // namespace

const DecoderOps& referenceOps() {
  static const ReferenceOps reference;
  return reference;
}

}  // namespace tb::engine
