// The fused operators' element-wise inner loops, built once per instruction
// set and chosen at start-up for the CPU the engine runs on. ATen's
// Vectorized<float> is as wide as the flags its translation unit is compiled
// with: in an ordinary file it is the portable 8-lane emulation, whose exp()
// calls std::exp lane by lane, which made the fused SwiGLU gate slower than
// ATen's own dispatched silu (tests/perf/kernel_lab measures both). So this
// file's kernels are compiled three times (vector_kernels_impl.cpp, with AVX-512,
// AVX2 and no extra flags, SLEEF doing exp at the wide widths), as ATen
// compiles its own kernels, and a table of function pointers picks one.
// Every table computes the same arithmetic; the parity tests run each table
// the machine supports against the plain reference.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace tb::engine::fused::cpu {

/// The float32 constants of one AdamW step after clipping, rounded once as
/// ATen rounds its scalars (fused/adamw.cpp fills them).
struct AdamWConstants {
  float decayFactor;  ///< 1 − lr·wd
  float beta1, oneMinusBeta1;
  float beta2, oneMinusBeta2;
  float correction2Sqrt, epsilon;
  float negativeStepSize;  ///< −lr / (1 − β1^t)
  float clipScale;
};

/// One instruction set's build of the loops. Every length is in floats and
/// may be any size, tails included; none of them starts threads.
struct VectorKernels {
  std::string_view isa;  ///< "avx512", "avx2" or "generic"

  /// y = silu(a) · b, silu(a) = a / (1 + exp(−a)) as ATen computes it.
  void (*swiGluForward)(const float* a, const float* b, float* y, std::int64_t n);
  /// da = g·b·s·(1 + a·(1 − s)), db = g·a·s with s = sigmoid(a).
  void (*swiGluBackward)(const float* g, const float* a, const float* b, float* da, float* db,
                         std::int64_t n);
  /// Σ x², in double over float blocks.
  double (*sumOfSquares)(const float* x, std::int64_t n);
  /// AdamW after clipping on n elements; `decays` applies the weight decay.
  void (*adamWUpdate)(float* p, const float* g, float* m, float* v, std::int64_t n, bool decays,
                      const AdamWConstants& k);
  /// max x.
  float (*maxOf)(const float* x, std::int64_t n);
  /// x = exp(x − shift) in place; returns Σ of the results.
  float (*expShifted)(float* x, std::int64_t n, float shift);
  /// Σ exp(x − shift) in double (x unchanged): a vocabulary-long float sum
  /// drifts past the head's parity tolerance.
  double (*sumExpShifted)(const float* x, std::int64_t n, float shift);
  /// x = exp(x − shift) · scale in place.
  void (*expShiftedScaled)(float* x, std::int64_t n, float shift, float scale);
  /// p = exp(p − shift) in place; returns Σ p·d with the new p.
  float (*expShiftedDot)(float* p, const float* d, std::int64_t n, float shift);
  /// d = p · (d − delta) · scale in place: the softmax backward of a row.
  void (*softmaxBackward)(const float* p, float* d, std::int64_t n, float delta, float scale);
};

/// The widest table this CPU runs (ATen's own test, so ATEN_CPU_CAPABILITY
/// can narrow it as it narrows ATen's kernels).
[[nodiscard]] const VectorKernels& vectorKernels();

/// Every table built into this binary that this CPU runs, widest first.
[[nodiscard]] std::vector<const VectorKernels*> supportedVectorKernels();

}  // namespace tb::engine::fused::cpu
