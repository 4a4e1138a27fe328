// Binds the reference operator functions to the DecoderOps interface.
#include "model/decoder_ops.hpp"

#include "fused/fused_ops.hpp"
#include "model/recompute.hpp"
#include "tb/engine/model.hpp"

namespace tb::engine {

at::Tensor DecoderOps::attentionRebuiltInBackward(const at::Tensor& q, const at::Tensor& k,
                                                  const at::Tensor& v) const {
  const auto core = [this](const std::vector<at::Tensor>& in) {
    return attention(in[0], in[1], in[2]);
  };
  return recomputeInBackward(core, {q, k, v});
}

at::Tensor DecoderOps::headLossRebuiltInBackward(const at::Tensor& x, const at::Tensor& weight,
                                                 const at::Tensor& targets) const {
  const bool cpuFloat =
      x.device().is_cpu() && x.scalar_type() == at::kFloat && weight.scalar_type() == at::kFloat;
  if (!cpuFloat) return headLoss(x, weight, targets);
  return fused::headLossRebuiltInBackward(x, weight, targets, matmulPath());
}

namespace {

class ReferenceOps final : public DecoderOps {
 public:
  ReferenceOps(const MatmulPath& path, bool gqaInPlace) : path_(&path), gqaInPlace_(gqaInPlace) {}

  at::Tensor linear(const at::Tensor& x, const at::Tensor& w,
                    const at::Tensor& bias) const override {
    return path_->linear(x, w, bias);
  }
  at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& w) const override {
    return ops::rmsNorm(x, w, kNormEpsilon);
  }
  at::Tensor rope(const at::Tensor& x, const ops::RopeTables& tables) const override {
    return ops::rope(x, tables);
  }
  at::Tensor attention(const at::Tensor& q, const at::Tensor& k,
                       const at::Tensor& v) const override {
    return gqaInPlace_ ? ops::causalAttentionGrouped(q, k, v) : ops::causalAttention(q, k, v);
  }
  at::Tensor attentionRebuiltInBackward(const at::Tensor& q, const at::Tensor& k,
                                        const at::Tensor& v) const override {
    return gqaInPlace_ ? groupedAttentionRebuiltInBackward(q, k, v)
                       : DecoderOps::attentionRebuiltInBackward(q, k, v);
  }
  at::Tensor swiGluGate(const at::Tensor& a, const at::Tensor& b) const override {
    return ops::swiGluGate(a, b);
  }
  at::Tensor swiGlu(const at::Tensor& x, const at::Tensor& w1, const at::Tensor& w2,
                    const at::Tensor& w3) const override {
    const at::Tensor none;
    return linear(ops::swiGluGate(linear(x, w1, none), linear(x, w3, none)), w2, none);
  }
  at::Tensor headLoss(const at::Tensor& x, const at::Tensor& weight,
                      const at::Tensor& targets) const override {
    return ops::crossEntropy(linear(x, weight, at::Tensor()), targets);
  }
  const MatmulPath& matmulPath() const override { return *path_; }

 private:
  const MatmulPath* path_;
  bool gqaInPlace_;
};

}  // namespace

const DecoderOps& referenceOps() {
  static const ReferenceOps reference(atenMatmulPath(), false);
  return reference;
}

std::unique_ptr<DecoderOps> makeReferenceOps(const MatmulPath& path, bool gqaInPlace) {
  return std::make_unique<ReferenceOps>(path, gqaInPlace);
}

}  // namespace tb::engine
