// One instruction set's build of fused/vector_kernels.hpp. CMake compiles
// this file once per set with TB_VECTOR_ISA naming it (avx512, avx2,
// generic) and, for the wide ones, the compiler flags and ATen's
// CPU_CAPABILITY macros that make Vectorized<float> 16 or 8 real lanes. The
// loops read as the scalar arithmetic they replace, in the same order per
// element, so every build rounds each element alike; only sums differ in the
// order lanes are added.
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "fused/vector_kernels.hpp"

#ifndef TB_VECTOR_ISA
#error "TB_VECTOR_ISA names the instruction set this build is for (see core/engine/CMakeLists.txt)"
#endif
#define TB_STRINGIFY_(x) #x
#define TB_STRINGIFY(x) TB_STRINGIFY_(x)

namespace tb::engine::fused::cpu::TB_VECTOR_ISA {
namespace {

using Vec = at::vec::Vectorized<float>;
constexpr std::int64_t kLanes = Vec::size();

float addLanes(const Vec& v) {
  return at::vec::vec_reduce_all<float>([](Vec a, Vec b) { return a + b; }, v);
}

void swiGluForward(const float* a, const float* b, float* y, std::int64_t n) {
  const Vec one(1.0F);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const Vec av = Vec::loadu(a + i);
    (av / (one + av.neg().exp()) * Vec::loadu(b + i)).store(y + i);
  }
  for (; i < n; ++i) y[i] = a[i] / (1.0F + std::exp(-a[i])) * b[i];
}

void swiGluBackward(const float* g, const float* a, const float* b, float* da, float* db,
                    std::int64_t n) {
  const Vec one(1.0F);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const Vec gv = Vec::loadu(g + i);
    const Vec av = Vec::loadu(a + i);
    const Vec s = one / (one + av.neg().exp());
    (gv * Vec::loadu(b + i) * s * (one + av * (one - s))).store(da + i);
    (gv * av * s).store(db + i);
  }
  for (; i < n; ++i) {
    const float s = 1.0F / (1.0F + std::exp(-a[i]));
    da[i] = g[i] * b[i] * s * (1.0F + a[i] * (1.0F - s));
    db[i] = g[i] * a[i] * s;
  }
}

double sumOfSquares(const float* x, std::int64_t n) {
  // Float lanes over short blocks, the blocks added in double: the gradient
  // norm is one number over millions of elements.
  constexpr std::int64_t kBlock = 256;
  double total = 0.0;
  std::int64_t i = 0;
  while (i + kLanes <= n) {
    Vec acc(0.0F);
    const std::int64_t blockEnd = std::min(n, i + kBlock);
    for (; i + kLanes <= blockEnd; i += kLanes) {
      const Vec v = Vec::loadu(x + i);
      acc = acc + v * v;
    }
    total += static_cast<double>(addLanes(acc));
  }
  for (; i < n; ++i) total += static_cast<double>(x[i]) * static_cast<double>(x[i]);
  return total;
}

void adamWUpdate(float* p, const float* g, float* m, float* v, std::int64_t n, bool decays,
                 const AdamWConstants& k) {
  const Vec decay(k.decayFactor), b1(k.beta1), c1(k.oneMinusBeta1), b2(k.beta2),
      c2(k.oneMinusBeta2), root(k.correction2Sqrt), eps(k.epsilon), step(k.negativeStepSize),
      clip(k.clipScale);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Vec param = Vec::loadu(p + i);
    if (decays) param = param * decay;
    const Vec grad = Vec::loadu(g + i) * clip;
    const Vec mv = Vec::loadu(m + i) * b1 + c1 * grad;
    const Vec vv = Vec::loadu(v + i) * b2 + c2 * grad * grad;
    const Vec denominator = vv.sqrt() / root + eps;
    (param + step * mv / denominator).store(p + i);
    mv.store(m + i);
    vv.store(v + i);
  }
  for (; i < n; ++i) {
    float param = p[i];
    if (decays) param = param * k.decayFactor;
    const float grad = g[i] * k.clipScale;
    m[i] = m[i] * k.beta1 + k.oneMinusBeta1 * grad;
    v[i] = v[i] * k.beta2 + k.oneMinusBeta2 * grad * grad;
    const float denominator = std::sqrt(v[i]) / k.correction2Sqrt + k.epsilon;
    p[i] = param + k.negativeStepSize * m[i] / denominator;
  }
}

float maxOf(const float* x, std::int64_t n) {
  float best = -std::numeric_limits<float>::infinity();
  std::int64_t i = 0;
  if (n >= kLanes) {
    Vec acc = Vec::loadu(x);
    for (i = kLanes; i + kLanes <= n; i += kLanes) acc = at::vec::maximum(acc, Vec::loadu(x + i));
    best = at::vec::vec_reduce_all<float>([](Vec a, Vec b) { return at::vec::maximum(a, b); }, acc);
  }
  for (; i < n; ++i) best = std::max(best, x[i]);
  return best;
}

float expShifted(float* x, std::int64_t n, float shift) {
  const Vec s(shift);
  Vec acc(0.0F);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const Vec e = (Vec::loadu(x + i) - s).exp();
    e.store(x + i);
    acc = acc + e;
  }
  float sum = addLanes(acc);
  for (; i < n; ++i) {
    x[i] = std::exp(x[i] - shift);
    sum += x[i];
  }
  return sum;
}

double sumExpShifted(const float* x, std::int64_t n, float shift) {
  // Float lanes over short blocks, the blocks added in double.
  constexpr std::int64_t kBlock = 256;
  const Vec s(shift);
  double total = 0.0;
  std::int64_t i = 0;
  while (i + kLanes <= n) {
    Vec acc(0.0F);
    const std::int64_t blockEnd = std::min(n, i + kBlock);
    for (; i + kLanes <= blockEnd; i += kLanes) acc = acc + (Vec::loadu(x + i) - s).exp();
    total += static_cast<double>(addLanes(acc));
  }
  for (; i < n; ++i) total += static_cast<double>(std::exp(x[i] - shift));
  return total;
}

void expShiftedScaled(float* x, std::int64_t n, float shift, float scale) {
  const Vec s(shift), c(scale);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) ((Vec::loadu(x + i) - s).exp() * c).store(x + i);
  for (; i < n; ++i) x[i] = std::exp(x[i] - shift) * scale;
}

float expShiftedDot(float* p, const float* d, std::int64_t n, float shift) {
  const Vec s(shift);
  Vec acc(0.0F);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const Vec e = (Vec::loadu(p + i) - s).exp();
    e.store(p + i);
    acc = acc + e * Vec::loadu(d + i);
  }
  float sum = addLanes(acc);
  for (; i < n; ++i) {
    p[i] = std::exp(p[i] - shift);
    sum += p[i] * d[i];
  }
  return sum;
}

void softmaxBackward(const float* p, float* d, std::int64_t n, float delta, float scale) {
  const Vec dl(delta), c(scale);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    (Vec::loadu(p + i) * (Vec::loadu(d + i) - dl) * c).store(d + i);
  }
  for (; i < n; ++i) d[i] = p[i] * (d[i] - delta) * scale;
}

}  // namespace

const VectorKernels& kernels() {
  static const VectorKernels table{TB_STRINGIFY(TB_VECTOR_ISA),
                                   swiGluForward,
                                   swiGluBackward,
                                   sumOfSquares,
                                   adamWUpdate,
                                   maxOf,
                                   expShifted,
                                   sumExpShifted,
                                   expShiftedScaled,
                                   expShiftedDot,
                                   softmaxBackward};
  return table;
}

}  // namespace tb::engine::fused::cpu::TB_VECTOR_ISA
