// A build without oneDNN: the fused kernels' products on ATen.
#include "matmul/gemm.hpp"

namespace tb::engine::fused::cpu {

void gemm(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
          const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
          std::int64_t ldc) {
  gemmAten(opA, opB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace tb::engine::fused::cpu
