// torch::autograd::gradcheck exists only in Python, so the op tests carry a
// small central-difference checker: autograd's gradient of a scalar function
// against (f(x + h) - f(x - h)) / 2h, element by element, in double precision.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <string>
#include <vector>

namespace tb::engine::testing {

/// The largest disagreement found and where.
struct GradientCheck {
  double worstError = 0.0;  ///< |autograd - numeric| / (1 + |numeric|)
  std::string where;        ///< "input 2 element 17"
  std::size_t elementsChecked = 0;
};

using ScalarFunction = std::function<at::Tensor(const std::vector<at::Tensor>&)>;

/// Checks every element of every floating-point input (integer inputs such
/// as targets are passed through). Inputs should be double and small.
GradientCheck checkGradients(const ScalarFunction& function, const std::vector<at::Tensor>& inputs,
                             double step = 1e-6);

/// Makes a tensor-valued op scalar with fixed random weights, so that every
/// output element's gradient is exercised: sum(op(...) * r).
at::Tensor weightedSum(const at::Tensor& output, std::uint64_t seed = 7);

}  // namespace tb::engine::testing
