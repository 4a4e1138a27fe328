// How "the same numbers" is judged in the parity test. Element-wise relative
// error is meaningless where a value is near zero (half of all gradients), so
// each tensor is judged as a whole: the largest absolute difference over the
// largest reference magnitude. The report keeps every tensor's error so that a
// failure names the worst one, not just "something differs".
#pragma once

#include <string>
#include <vector>

#include "parity/tensor_bundle.hpp"

namespace tb::engine::testing {

/// One tensor's disagreement: max|a - b| / max|b| (infinite on a shape mismatch).
struct TensorError {
  std::string name;
  double relativeError = 0.0;
};

/// Every reference tensor compared against the engine's tensor of that name.
struct ParityReport {
  std::vector<TensorError> tensors;
  std::vector<std::string> missing;  ///< reference tensors the engine lacks, and vice versa
  TensorError worst;

  /// "worst: grad.layers.0.attention.wq 3.1e-06 (of 24 tensors)" plus anything missing.
  [[nodiscard]] std::string describe() const;
};

/// max|a - b| / max|b|; max|a - b| when b is all zero; infinity on a shape mismatch.
[[nodiscard]] double relativeError(const at::Tensor& actual, const at::Tensor& expected);

/// Compares `engine` against `reference` tensor by tensor.
[[nodiscard]] ParityReport compareBundles(const TensorBundle& engine,
                                          const TensorBundle& reference);

}  // namespace tb::engine::testing
