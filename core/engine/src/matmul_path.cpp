// The stock matrix-product path: at::linear, whatever BLAS LibTorch was built
// with (OpenBLAS on Debian).
#include "matmul_path.hpp"

namespace tb::engine {
namespace {

class AtenMatmulPath final : public MatmulPath {
 public:
  [[nodiscard]] std::string_view name() const override { return "aten"; }
  [[nodiscard]] at::Tensor linear(const at::Tensor& x, const at::Tensor& weight,
                                  const at::Tensor& bias) const override {
    return at::linear(x, weight, bias.defined() ? c10::optional<at::Tensor>(bias) : c10::nullopt);
  }
};

}  // namespace

const MatmulPath& atenMatmulPath() {
  static const AtenMatmulPath path;
  return path;
}

}  // namespace tb::engine
