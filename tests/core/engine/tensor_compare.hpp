// How far a tensor is from the reference it is checked against, for the
// engine's parity tests: one definition, so every test measures the same way.
#pragma once

#include <ATen/ATen.h>

namespace tb::engine::test {

/// The largest absolute difference, relative to the reference's largest
/// magnitude (or absolute, when the reference is all zeros).
inline double relativeError(const at::Tensor& actual, const at::Tensor& expected) {
  const double scale = expected.abs().max().item<double>();
  return (actual - expected).abs().max().item<double>() / (scale > 0.0 ? scale : 1.0);
}

}  // namespace tb::engine::test
