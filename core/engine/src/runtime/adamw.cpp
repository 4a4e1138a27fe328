// The update follows torch.optim.AdamW (single-tensor path) step by step:
// decay the weight, update both moments, bias-correct, divide. Matching its
// order of operations keeps float32 results equal to PyTorch's, which the
// tests check against torch::optim::AdamW.
#include "runtime/adamw.hpp"

#include <ATen/ATen.h>

#include <cmath>
#include <stdexcept>
#include <utility>

namespace tb::engine {

AdamW::AdamW(std::vector<NamedTensor> parameters, AdamWOptions options) : options_(options) {
  at::NoGradGuard noGrad;
  for (auto& parameter : parameters) {
    Slot slot;
    slot.expAvg = at::zeros_like(parameter.tensor);
    slot.expAvgSq = at::zeros_like(parameter.tensor);
    slot.decays = parameter.tensor.dim() == 2;
    slot.parameter = std::move(parameter);
    slots_.push_back(std::move(slot));
  }
}

void AdamW::step() {
  at::NoGradGuard noGrad;
  ++steps_;
  const double t = static_cast<double>(steps_);
  const double correction1 = 1.0 - std::pow(options_.beta1, t);
  const double correction2 = 1.0 - std::pow(options_.beta2, t);
  const double stepSize = options_.learningRate / correction1;
  const double correction2Sqrt = std::sqrt(correction2);
  for (Slot& slot : slots_) {
    at::Tensor& param = slot.parameter.tensor;
    const at::Tensor grad = param.grad();
    if (!grad.defined()) continue;
    if (slot.decays) param.mul_(1.0 - options_.learningRate * options_.weightDecay);
    slot.expAvg.mul_(options_.beta1).add_(grad, 1.0 - options_.beta1);
    slot.expAvgSq.mul_(options_.beta2).addcmul_(grad, grad, 1.0 - options_.beta2);
    const at::Tensor denominator = (slot.expAvgSq.sqrt() / correction2Sqrt).add_(options_.epsilon);
    param.addcdiv_(slot.expAvg, denominator, -stepSize);
  }
}

void AdamW::zeroGrad() {
  for (Slot& slot : slots_) slot.parameter.tensor.mutable_grad() = at::Tensor();
}

std::vector<NamedTensor> AdamW::state() const {
  std::vector<NamedTensor> state;
  for (const Slot& slot : slots_) {
    state.push_back({"exp_avg." + slot.parameter.name, slot.expAvg});
    state.push_back({"exp_avg_sq." + slot.parameter.name, slot.expAvgSq});
  }
  return state;
}

void AdamW::restore(const std::vector<NamedTensor>& state, std::int64_t stepCount) {
  at::NoGradGuard noGrad;
  const auto find = [&state](const std::string& name) -> const at::Tensor& {
    for (const auto& entry : state) {
      if (entry.name == name) return entry.tensor;
    }
    throw std::invalid_argument("optimizer state has no tensor " + name);
  };
  for (Slot& slot : slots_) {
    slot.expAvg.copy_(find("exp_avg." + slot.parameter.name));
    slot.expAvgSq.copy_(find("exp_avg_sq." + slot.parameter.name));
  }
  steps_ = stepCount;
}

at::Tensor clipGradients(const std::vector<NamedTensor>& parameters, double maxNorm) {
  at::NoGradGuard noGrad;
  std::vector<at::Tensor> norms;
  for (const auto& parameter : parameters) {
    const at::Tensor grad = parameter.tensor.grad();
    if (grad.defined()) norms.push_back(grad.norm(2.0).to(at::kFloat));
  }
  if (norms.empty()) return {};
  const at::Tensor total = at::stack(norms).norm(2.0);
  const at::Tensor scale = (maxNorm / (total + 1e-6)).clamp_max(1.0);
  for (const auto& parameter : parameters) {
    at::Tensor grad = parameter.tensor.grad();
    if (grad.defined()) grad.mul_(scale.to(grad.device()));
  }
  return total;
}

double clipGradientNorm(const std::vector<NamedTensor>& parameters, double maxNorm) {
  const at::Tensor total = clipGradients(parameters, maxNorm);
  return total.defined() ? total.item<double>() : 0.0;
}

}  // namespace tb::engine
