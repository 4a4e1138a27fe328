// What every fused-operator parity test measures: the relative error
// max|a − b| / max(max|b|, tiny) of a fused result a against its reference b.
// Normalising by the largest reference value, not element by element, keeps
// values near zero (where float32 rounding dominates) from inflating the
// error, and stays meaningful for gradients spanning many magnitudes.
#pragma once

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace tb::engine::testing {

/// max|actual − expected| / max(max|expected|, the smallest normal float).
inline double relativeError(const at::Tensor& actual, const at::Tensor& expected) {
  const at::Tensor a = actual.to(at::kDouble);
  const at::Tensor b = expected.to(at::kDouble);
  if (b.numel() == 0) return 0.0;
  const double scale = std::max(b.abs().max().item<double>(),
                                static_cast<double>(std::numeric_limits<float>::min()));
  return (a - b).abs().max().item<double>() / scale;
}

/// A float32 tensor of normal samples from `seed`, times `scale`.
inline at::Tensor randomFloat(at::IntArrayRef shape, std::uint64_t seed, double scale = 1.0) {
  at::manual_seed(seed);
  return at::randn(shape, at::kFloat) * scale;
}

/// A fresh leaf that requires grad, equal to `value`.
inline at::Tensor leaf(const at::Tensor& value) {
  return value.detach().clone().requires_grad_(true);
}

}  // namespace tb::engine::testing
