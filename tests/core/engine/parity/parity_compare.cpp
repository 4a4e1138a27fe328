// The comparison runs in double so that rounding in the check itself cannot
// hide or create a difference at the 1e-5 level.
#include "parity/parity_compare.hpp"

#include <limits>
#include <sstream>

namespace tb::engine::testing {

double relativeError(const at::Tensor& actual, const at::Tensor& expected) {
  if (!actual.sizes().equals(expected.sizes())) return std::numeric_limits<double>::infinity();
  if (expected.numel() == 0) return 0.0;
  const at::Tensor a = actual.detach().to(at::kDouble);
  const at::Tensor b = expected.detach().to(at::kDouble);
  const double difference = (a - b).abs().max().item<double>();
  const double scale = b.abs().max().item<double>();
  return scale > 0.0 ? difference / scale : difference;
}

ParityReport compareBundles(const TensorBundle& engine, const TensorBundle& reference) {
  ParityReport report;
  report.worst.relativeError = -1.0;
  for (const auto& expected : reference.tensors) {
    const at::Tensor actual = engine.find(expected.name);
    if (!actual.defined()) {
      report.missing.push_back(expected.name);
      continue;
    }
    TensorError error{expected.name, relativeError(actual, expected.tensor)};
    if (error.relativeError > report.worst.relativeError) report.worst = error;
    report.tensors.push_back(std::move(error));
  }
  for (const auto& produced : engine.tensors) {
    if (!reference.find(produced.name).defined()) report.missing.push_back(produced.name);
  }
  return report;
}

std::string ParityReport::describe() const {
  std::ostringstream text;
  text << "worst: " << worst.name << " " << worst.relativeError << " (of " << tensors.size()
       << " tensors)";
  if (!missing.empty()) {
    text << "; present on one side only:";
    for (const auto& name : missing) text << " " << name;
  }
  return text.str();
}

}  // namespace tb::engine::testing
