// The fused kernels' matrix product on ATen: the reference the oneDNN sgemm
// is checked against (fused_gemm_test), and the product itself in a build
// without oneDNN (gemm_fallback.cpp), where a tile product goes through
// at::addmm on views of the caller's memory, at the cost of a dispatch.
#include <ATen/ATen.h>

#include "matmul/gemm.hpp"

namespace tb::engine::fused::cpu {
namespace {

/// A rows x cols row-major view with leading dimension `ld`, of a matrix
/// stored as given or (Transposed) stored as its transpose.
at::Tensor view(Op op, std::int64_t rows, std::int64_t cols, const float* data, std::int64_t ld) {
  auto* base = const_cast<float*>(data);  // read only: addmm_ writes c alone
  const auto options = at::TensorOptions().dtype(at::kFloat);
  if (op == Op::Transposed) return at::from_blob(base, {cols, rows}, {ld, 1}, options).t();
  return at::from_blob(base, {rows, cols}, {ld, 1}, options);
}

}  // namespace

void gemmAten(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
              const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta,
              float* c, std::int64_t ldc) {
  if (m == 0 || n == 0) return;
  at::Tensor out = at::from_blob(c, {m, n}, {ldc, 1}, at::TensorOptions().dtype(at::kFloat));
  if (k == 0) {
    out.mul_(beta);
    return;
  }
  // BLAS's rule: beta 0 overwrites c, whatever it held (NaN included).
  if (beta == 0.0F) out.zero_();
  out.addmm_(view(opA, m, k, a, lda), view(opB, k, n, b, ldb), beta == 0.0F ? 1.0F : beta, alpha);
}

}  // namespace tb::engine::fused::cpu
