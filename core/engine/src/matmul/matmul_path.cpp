// The stock matrix-product path: at::linear, whatever BLAS LibTorch was built
// with (OpenBLAS on Debian).
#include "matmul/matmul_path.hpp"

namespace tb::engine {
namespace {

class AtenMatmulPath final : public MatmulPath {
 public:
  [[nodiscard]] std::string_view name() const override { return "aten"; }
  [[nodiscard]] at::Tensor linear(const at::Tensor& x, const at::Tensor& weight,
                                  const at::Tensor& bias) const override {
    return at::linear(x, weight, bias.defined() ? c10::optional<at::Tensor>(bias) : c10::nullopt);
  }
  [[nodiscard]] LinearGradients linearGradients(const at::Tensor& gradient, const at::Tensor& x,
                                                const at::Tensor& weight,
                                                bool withBias) const override {
    return atenLinearGradients(gradient, x, weight, withBias);
  }
};

}  // namespace

LinearGradients atenLinearGradients(const at::Tensor& gradient, const at::Tensor& x,
                                    const at::Tensor& weight, bool withBias) {
  const at::Tensor dY = gradient.reshape({-1, weight.size(0)});
  LinearGradients grads;
  grads.input = at::mm(dY, weight).view(x.sizes());
  grads.weight = at::mm(dY.t(), x.reshape({-1, weight.size(1)}));
  if (withBias) grads.bias = dY.sum(0);
  return grads;
}

const MatmulPath& atenMatmulPath() {
  static const AtenMatmulPath path;
  return path;
}

}  // namespace tb::engine
