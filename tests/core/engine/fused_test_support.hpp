// What the fused-operator parity tests share: one definition of relative
// error, so every tolerance in them means the same thing, and the tracking
// allocator's view of what an op keeps alive.
#pragma once

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdint>

namespace tb::engine::testing {

/// max |actual − expected| / max |expected| over the whole tensor (the
/// infinity-norm relative error), with `expected` the reference evaluated in
/// float64 on the same float32 values. Elementwise ratios would blow up on
/// entries that are zero by cancellation; this does not.
inline double relativeError(const at::Tensor& actual, const at::Tensor& expected) {
  const at::Tensor e = expected.to(at::kDouble);
  const double scale = std::max(e.abs().max().item<double>(), 1e-30);
  return (actual.to(at::kDouble) - e).abs().max().item<double>() / scale;
}

/// Float32 CPU tensor of standard-normal values from `seed`.
inline at::Tensor randomFloat(at::IntArrayRef shape, std::uint64_t seed) {
  at::manual_seed(seed);
  return at::randn(shape, at::kFloat);
}

}  // namespace tb::engine::testing
