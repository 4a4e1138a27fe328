// Row-major float32 matrix products for the fused kernels whose products are
// not linear-shaped: attention's tile products and the fused head's backward.
// They go to oneDNN's sgemm (JIT kernels for the CPU it runs on) rather than
// to ATen's mm: ATen hands them to its BLAS, whose own thread pool the tuned
// runtime shrinks to one thread (host_runtime.hpp), and a tile product is too
// small to pay for a dispatch through tensors. Called inside at::parallel_for
// it runs on the calling thread; outside, on the intra-op pool.
#pragma once

#include <cstdint>

namespace tb::engine::fused::cpu {

/// Which operand is read transposed.
enum class Op : bool { Plain = false, Transposed = true };

/// C[m, n] = alpha · op(A) · op(B) + beta · C, every matrix row-major with the
/// given leading dimension (row stride, in elements), op(A) [m, k], op(B) [k, n].
/// Throws std::runtime_error naming the shape if oneDNN refuses it. (On
/// oneDNN's sgemm where the engine links oneDNN: gemm.cpp; else on ATen:
/// gemm_fallback.cpp.)
void gemm(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
          const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
          std::int64_t ldc);

/// The same product through ATen's addmm on views of the same memory: the
/// plain reference `gemm` is checked against, and `gemm` itself where the
/// engine is built without oneDNN.
void gemmAten(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
              const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta,
              float* c, std::int64_t ldc);

}  // namespace tb::engine::fused::cpu
