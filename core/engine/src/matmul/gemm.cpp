#include "matmul/gemm.hpp"

#include <oneapi/dnnl/dnnl.h>

#include <stdexcept>
#include <string>

namespace tb::engine::fused::cpu {

void gemm(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
          const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
          std::int64_t ldc) {
  if (m == 0 || n == 0) return;
  const dnnl_status_t status =
      dnnl_sgemm(opA == Op::Transposed ? 'T' : 'N', opB == Op::Transposed ? 'T' : 'N', m, n, k,
                 alpha, a, lda, b, ldb, beta, c, ldc);
  if (status != dnnl_success) {
    throw std::runtime_error("fused gemm: oneDNN refused a [" + std::to_string(m) + " x " +
                             std::to_string(k) + "] by [" + std::to_string(k) + " x " +
                             std::to_string(n) + "] product (status " +
                             std::to_string(static_cast<int>(status)) + ")");
  }
}

}  // namespace tb::engine::fused::cpu
