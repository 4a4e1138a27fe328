// Every instruction-set build of the fused kernels' vector loops that this
// machine runs (AVX-512, AVX2, portable) against plain float64 loops written
// from the formulas, on random inputs whose lengths cover empty vector
// bodies, tails and long rows. The operator-level parity tests then only run
// the build the engine picks; this is where the others are checked.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fused/vector_kernels.hpp"

namespace {

using tb::engine::fused::cpu::AdamWConstants;
using tb::engine::fused::cpu::VectorKernels;

constexpr double kFusedVectorKernelsTolerance = 1e-5;
constexpr std::int64_t kLengths[] = {1, 7, 16, 33, 257, 4099};

std::vector<float> randomVector(std::int64_t n, unsigned seed, float spread = 2.0F) {
  std::mt19937 generator(seed);
  std::normal_distribution<float> normal(0.0F, spread);
  std::vector<float> values(static_cast<std::size_t>(n));
  for (float& v : values) v = normal(generator);
  return values;
}

/// max |a − e| / max |e|, as the operator parity tests measure it.
double relativeError(const std::vector<float>& actual, const std::vector<double>& expected) {
  double worst = 0.0;
  double scale = 1e-30;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    worst = std::max(worst, std::abs(static_cast<double>(actual[i]) - expected[i]));
    scale = std::max(scale, std::abs(expected[i]));
  }
  return worst / scale;
}

double relativeError(double actual, double expected) {
  return std::abs(actual - expected) / std::max(std::abs(expected), 1e-30);
}

class VectorKernelsParity : public ::testing::TestWithParam<const VectorKernels*> {};

TEST_P(VectorKernelsParity, SwiGluForwardAndBackwardFollowTheFormulas) {
  const VectorKernels& k = *GetParam();
  for (const std::int64_t n : kLengths) {
    const auto a = randomVector(n, 1), b = randomVector(n, 2), g = randomVector(n, 3);
    std::vector<float> y(a.size()), da(a.size()), db(a.size());
    k.swiGluForward(a.data(), b.data(), y.data(), n);
    k.swiGluBackward(g.data(), a.data(), b.data(), da.data(), db.data(), n);
    std::vector<double> ey(a.size()), eda(a.size()), edb(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double s = 1.0 / (1.0 + std::exp(-static_cast<double>(a[i])));
      ey[i] = a[i] * s * b[i];
      eda[i] = g[i] * b[i] * s * (1.0 + a[i] * (1.0 - s));
      edb[i] = g[i] * a[i] * s;
    }
    EXPECT_LE(relativeError(y, ey), kFusedVectorKernelsTolerance) << k.isa << " y, n=" << n;
    EXPECT_LE(relativeError(da, eda), kFusedVectorKernelsTolerance) << k.isa << " da, n=" << n;
    EXPECT_LE(relativeError(db, edb), kFusedVectorKernelsTolerance) << k.isa << " db, n=" << n;
  }
}

TEST_P(VectorKernelsParity, ReductionsFollowTheFormulas) {
  const VectorKernels& k = *GetParam();
  for (const std::int64_t n : kLengths) {
    const auto x = randomVector(n, 4);
    double squares = 0.0, largest = -INFINITY;
    for (const float v : x) {
      squares += static_cast<double>(v) * v;
      largest = std::max(largest, static_cast<double>(v));
    }
    EXPECT_LE(relativeError(k.sumOfSquares(x.data(), n), squares), kFusedVectorKernelsTolerance)
        << k.isa << n;
    EXPECT_EQ(k.maxOf(x.data(), n), static_cast<float>(largest)) << k.isa << " n=" << n;
  }
}

TEST_P(VectorKernelsParity, ExponentialRowsFollowTheFormulas) {
  const VectorKernels& k = *GetParam();
  for (const std::int64_t n : kLengths) {
    const auto x = randomVector(n, 5), d = randomVector(n, 6);
    const float shift = 1.5F;
    std::vector<double> e(x.size());
    double sum = 0.0, dotted = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      e[i] = std::exp(static_cast<double>(x[i]) - shift);
      sum += e[i];
      dotted += e[i] * d[i];
    }
    EXPECT_LE(relativeError(k.sumExpShifted(x.data(), n, shift), sum), kFusedVectorKernelsTolerance)
        << k.isa;

    std::vector<float> inPlace = x;
    EXPECT_LE(relativeError(k.expShifted(inPlace.data(), n, shift), sum),
              kFusedVectorKernelsTolerance)
        << k.isa;
    EXPECT_LE(relativeError(inPlace, e), kFusedVectorKernelsTolerance) << k.isa << " exp, n=" << n;

    std::vector<float> scaled = x;
    k.expShiftedScaled(scaled.data(), n, shift, 0.25F);
    std::vector<double> eScaled(e);
    for (double& v : eScaled) v *= 0.25;
    EXPECT_LE(relativeError(scaled, eScaled), kFusedVectorKernelsTolerance)
        << k.isa << " scaled, n=" << n;

    std::vector<float> p = x;
    EXPECT_LE(relativeError(k.expShiftedDot(p.data(), d.data(), n, shift), dotted),
              kFusedVectorKernelsTolerance * static_cast<double>(n))  // a signed sum: cancellation
        << k.isa << " dot, n=" << n;
    EXPECT_LE(relativeError(p, e), kFusedVectorKernelsTolerance) << k.isa << " p, n=" << n;

    std::vector<float> grad = d;
    k.softmaxBackward(p.data(), grad.data(), n, 0.5F, 0.125F);
    std::vector<double> eGrad(e.size());
    for (std::size_t i = 0; i < e.size(); ++i) eGrad[i] = e[i] * (d[i] - 0.5) * 0.125;
    EXPECT_LE(relativeError(grad, eGrad), kFusedVectorKernelsTolerance)
        << k.isa << " softmax grad, n=" << n;
  }
}

TEST_P(VectorKernelsParity, AdamWUpdateFollowsTheFormulas) {
  const VectorKernels& k = *GetParam();
  const AdamWConstants c{0.99997F, 0.9F, 0.1F, 0.95F, 0.05F, 0.3F, 1e-8F, -3e-3F, 0.7F};
  for (const bool decays : {true, false}) {
    for (const std::int64_t n : kLengths) {
      auto p = randomVector(n, 7), m = randomVector(n, 8, 0.01F);
      auto v = randomVector(n, 9, 0.01F);
      for (float& value : v) value = std::abs(value);
      const auto g = randomVector(n, 10);
      std::vector<double> ep(p.size()), em(p.size()), ev(p.size());
      for (std::size_t i = 0; i < p.size(); ++i) {
        const double grad = static_cast<double>(g[i]) * c.clipScale;
        em[i] = m[i] * static_cast<double>(c.beta1) + c.oneMinusBeta1 * grad;
        ev[i] = v[i] * static_cast<double>(c.beta2) + c.oneMinusBeta2 * grad * grad;
        const double param = decays ? p[i] * static_cast<double>(c.decayFactor) : p[i];
        ep[i] = param + c.negativeStepSize * em[i] /
                            (std::sqrt(ev[i]) / c.correction2Sqrt + static_cast<double>(c.epsilon));
      }
      k.adamWUpdate(p.data(), g.data(), m.data(), v.data(), n, decays, c);
      const std::string where = std::string(k.isa) + " n=" + std::to_string(n);
      EXPECT_LE(relativeError(p, ep), kFusedVectorKernelsTolerance) << where;
      EXPECT_LE(relativeError(m, em), kFusedVectorKernelsTolerance) << where;
      EXPECT_LE(relativeError(v, ev), kFusedVectorKernelsTolerance) << where;
    }
  }
}

std::string isaName(const ::testing::TestParamInfo<const VectorKernels*>& info) {
  return std::string(info.param->isa);
}

INSTANTIATE_TEST_SUITE_P(EveryBuildThisCpuRuns, VectorKernelsParity,
                         ::testing::ValuesIn(tb::engine::fused::cpu::supportedVectorKernels()),
                         isaName);

TEST(VectorKernels, ThePortableBuildIsAlwaysThereAndTheEnginePicksTheWidest) {
  const auto tables = tb::engine::fused::cpu::supportedVectorKernels();
  ASSERT_FALSE(tables.empty());
  EXPECT_EQ(tables.back()->isa, "generic");
  EXPECT_EQ(&tb::engine::fused::cpu::vectorKernels(), tables.front());
}

}  // namespace
