// The fused kernels' oneDNN sgemm against its plain reference on ATen
// (gemmAten, which is also the product of a build without oneDNN): every
// transpose combination, odd shapes, leading dimensions wider than a row,
// alpha and beta, and beta 0 over a C full of NaN (BLAS overwrites it).
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <limits>
#include <vector>

#include "matmul/gemm.hpp"

namespace {

using tb::engine::fused::cpu::gemm;
using tb::engine::fused::cpu::gemmAten;
using tb::engine::fused::cpu::Op;

// float32 products of k <= 67 terms of unit scale, summed in different
// orders: a few units in the last place of the largest entry.
constexpr double kFusedGemmRelTolerance = 2e-6;

struct Shape {
  std::int64_t m, n, k;
};

std::vector<float> randomMatrix(std::int64_t rows, std::int64_t ld) {
  const at::Tensor values = at::randn({rows * ld});
  const float* data = values.data_ptr<float>();
  return {data, data + rows * ld};
}

void expectSameProduct(Op opA, Op opB, const Shape& s, float alpha, float beta, bool nanC) {
  at::manual_seed(11);
  // Stored shapes: A is [m, k] or, transposed, [k, m]; B is [k, n] or [n, k].
  const std::int64_t aRows = opA == Op::Transposed ? s.k : s.m;
  const std::int64_t aCols = opA == Op::Transposed ? s.m : s.k;
  const std::int64_t bRows = opB == Op::Transposed ? s.n : s.k;
  const std::int64_t bCols = opB == Op::Transposed ? s.k : s.n;
  const std::int64_t lda = aCols + 3, ldb = bCols + 1, ldc = s.n + 5;
  const std::vector<float> a = randomMatrix(aRows, lda);
  const std::vector<float> b = randomMatrix(bRows, ldb);
  std::vector<float> c = randomMatrix(s.m, ldc);
  if (nanC) std::fill(c.begin(), c.end(), std::numeric_limits<float>::quiet_NaN());
  std::vector<float> reference = c;

  gemm(opA, opB, s.m, s.n, s.k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  gemmAten(opA, opB, s.m, s.n, s.k, alpha, a.data(), lda, b.data(), ldb, beta, reference.data(),
           ldc);

  const auto at = [ldc](const std::vector<float>& matrix, std::int64_t i, std::int64_t j) {
    return matrix[static_cast<std::size_t>(i * ldc + j)];
  };
  double scale = 0.0;
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j)
      scale = std::max(scale, std::abs(double(at(reference, i, j))));
  for (std::int64_t i = 0; i < s.m; ++i) {
    for (std::int64_t j = 0; j < s.n; ++j) {
      const double got = at(c, i, j), want = at(reference, i, j);
      ASSERT_TRUE(std::isfinite(want)) << i << "," << j;
      ASSERT_LE(std::abs(got - want), kFusedGemmRelTolerance * scale) << "at " << i << "," << j;
    }
    // The padding past each row of C is left as it was.
    for (std::int64_t j = s.n; j < ldc && i + 1 < s.m; ++j) {
      const float got = at(c, i, j), was = at(reference, i, j);
      ASSERT_TRUE(got == was || (std::isnan(got) && std::isnan(was)))
          << "padding " << i << "," << j;
    }
  }
}

TEST(FusedGemm, OneDnnMatchesTheAtenReferenceOnEveryTransposeAndOddShapes) {
  for (const Op opA : {Op::Plain, Op::Transposed}) {
    for (const Op opB : {Op::Plain, Op::Transposed}) {
      for (const Shape& shape :
           {Shape{1, 1, 1}, Shape{7, 13, 5}, Shape{33, 17, 67}, Shape{64, 48, 32}}) {
        SCOPED_TRACE(testing::Message() << "opA " << int(opA) << " opB " << int(opB) << " m "
                                        << shape.m << " n " << shape.n << " k " << shape.k);
        expectSameProduct(opA, opB, shape, 1.0F, 0.0F, false);
        expectSameProduct(opA, opB, shape, 0.5F, 1.0F, false);
        expectSameProduct(opA, opB, shape, -2.0F, 0.25F, false);
      }
    }
  }
}

TEST(FusedGemm, BetaZeroOverwritesWhateverCHeld) {
  expectSameProduct(Op::Plain, Op::Transposed, {9, 11, 6}, 1.0F, 0.0F, true);
}

}  // namespace
