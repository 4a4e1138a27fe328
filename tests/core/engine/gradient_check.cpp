// Central differences in double have error O(h²) + O(eps/h); h = 1e-6 keeps
// both near 1e-10 for the smooth ops of the decoder, so tests can demand 1e-6.
#include "gradient_check.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

namespace tb::engine::testing {

GradientCheck checkGradients(const ScalarFunction& function, const std::vector<at::Tensor>& inputs,
                             double step) {
  std::vector<at::Tensor> leaves;
  for (const auto& input : inputs) {
    at::Tensor leaf = input.detach().clone();
    if (leaf.is_floating_point()) leaf.requires_grad_(true);
    leaves.push_back(leaf);
  }
  function(leaves).backward();

  GradientCheck result;
  at::NoGradGuard noGrad;
  std::vector<at::Tensor> probe;
  for (const auto& leaf : leaves) probe.push_back(leaf.detach().clone());
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i].is_floating_point()) continue;
    const at::Tensor analytic = leaves[i].grad().reshape({-1});
    at::Tensor flat = probe[i].view({-1});
    for (std::int64_t j = 0; j < flat.numel(); ++j) {
      const double original = flat[j].item<double>();
      flat[j].fill_(original + step);
      const double plus = function(probe).item<double>();
      flat[j].fill_(original - step);
      const double minus = function(probe).item<double>();
      flat[j].fill_(original);
      const double numeric = (plus - minus) / (2.0 * step);
      const double difference = std::abs(analytic[j].item<double>() - numeric);
      const double error = difference / (1.0 + std::abs(numeric));
      ++result.elementsChecked;
      if (error > result.worstError) {
        result.worstError = error;
        result.where = "input " + std::to_string(i) + " element " + std::to_string(j);
      }
    }
  }
  return result;
}

at::Tensor weightedSum(const at::Tensor& output, std::uint64_t seed) {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  const at::Tensor weights =
      at::empty(output.sizes(), output.options()).normal_(0.0, 1.0, generator);
  return (output * weights).sum();
}

}  // namespace tb::engine::testing
