// Shared pieces of the fused CPU kernels: the one vector type they use, the
// input checks that turn a wrong dtype or device into a clear message rather
// than a read of the wrong bytes, and a reduction whose order does not depend
// on the number of threads, so a fused run is bit-for-bit repeatable whatever
// `--threads` says.
#pragma once

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>

#include <cstdint>
#include <string_view>

namespace tb::engine::fused::cpu {

using Vec = at::vec::Vectorized<float>;
inline constexpr std::int64_t kLanes = Vec::size();

/// Throws std::invalid_argument naming `what` unless `t` is a float32 CPU tensor.
void requireFloatCpu(const at::Tensor& t, std::string_view what);

/// Σ x[i]² over n floats, vector lanes first, then the tail.
[[nodiscard]] inline float sumOfSquares(const float* x, std::int64_t n) {
  Vec acc(0.0F);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const Vec v = Vec::loadu(x + i);
    acc = acc + v * v;
  }
  float sum = at::vec::vec_reduce_all<float>([](Vec a, Vec b) { return a + b; }, acc);
  for (; i < n; ++i) sum += x[i] * x[i];
  return sum;
}

/// Rows are cut into blocks of this many for per-block partial sums: the cut
/// is fixed, so partials are combined in the same order on any thread count.
inline constexpr std::int64_t kRowsPerBlock = 32;

[[nodiscard]] inline std::int64_t blockCount(std::int64_t rows) {
  return (rows + kRowsPerBlock - 1) / kRowsPerBlock;
}

}  // namespace tb::engine::fused::cpu
