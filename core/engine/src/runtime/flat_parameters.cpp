// Arithmetic: the same element-wise ops, in the same order, as
// clipGradientNorm + AdamW::step (adamw.cpp), applied to whole buffers; the
// norm is summed the same way too (a norm of per-tensor norms).
#include "runtime/flat_parameters.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "fused/fused_ops.hpp"

namespace tb::engine {
namespace {

/// Every parameter slot of `weights`, to be repointed at its view.
std::vector<at::Tensor*> parameterSlots(DecoderWeights& weights) {
  std::vector<at::Tensor*> slots{&weights.embedding, &weights.finalNorm, &weights.output};
  for (BlockWeights& b : weights.blocks) {
    for (at::Tensor* slot : {&b.attentionNorm, &b.wq, &b.wk, &b.wv, &b.bq, &b.bk, &b.bv, &b.wo,
                             &b.ffnNorm, &b.w1, &b.w2, &b.w3}) {
      if (slot->defined()) slots.push_back(slot);
    }
  }
  return slots;
}

at::Tensor viewAt(const at::Tensor& flat, std::int64_t offset, const at::Tensor& like) {
  return flat.narrow(0, offset, like.numel()).view(like.sizes());
}

}  // namespace

FlatParameters::FlatParameters(DecoderWeights& weights, AdamWOptions options, bool fusedUpdate)
    : options_(options), fusedUpdate_(fusedUpdate) {
  at::NoGradGuard noGrad;
  std::vector<NamedTensor> original = namedParameters(weights);
  std::stable_partition(original.begin(), original.end(),
                        [](const NamedTensor& p) { return p.tensor.dim() == 2; });
  std::int64_t total = 0;
  for (const NamedTensor& parameter : original) {
    offsets_.push_back(total);
    if (parameter.tensor.dim() == 2) decayEnd_ = total + parameter.tensor.numel();
    total += parameter.tensor.numel();
  }
  const auto flatOptions = original.front().tensor.options().dtype(at::kFloat);
  values_ = at::empty({total}, flatOptions.requires_grad(false));

  std::unordered_map<const void*, at::Tensor*> slotOf;
  for (at::Tensor* slot : parameterSlots(weights)) slotOf[slot->unsafeGetTensorImpl()] = slot;
  for (std::size_t i = 0; i < original.size(); ++i) {
    const at::Tensor& before = original[i].tensor;
    const auto found = slotOf.find(before.unsafeGetTensorImpl());
    if (found == slotOf.end()) {
      throw std::logic_error("flat parameters: no weight slot for " + original[i].name);
    }
    at::Tensor view = viewAt(values_, offsets_[i], before);
    view.copy_(before);
    // detach(): a leaf of its own that shares the buffer's storage, so the
    // whole-buffer updates below change it without autograd seeing a view.
    at::Tensor leaf = view.detach().requires_grad_(true);
    *found->second = leaf;
    named_.push_back({original[i].name, leaf});
  }
  // The per-tensor weights die here, before the other three buffers exist:
  // held until the end, they were a fifth buffer's worth at start-up, and the
  // peak of any run whose steps keep little (full recomputation on the
  // sweep's MHA shape, compiled: 25.6 MB against a 20.5 MB step).
  original.clear();
  gradients_ = at::zeros({total}, flatOptions.requires_grad(false));
  expAvg_ = at::zeros_like(gradients_);
  expAvgSq_ = at::zeros_like(gradients_);
  for (std::size_t i = 0; i < named_.size(); ++i) {
    named_[i].tensor.mutable_grad() = viewAt(gradients_, offsets_[i], named_[i].tensor);
  }
}

at::Tensor FlatParameters::clipAndStep(double maxNorm) {
  at::NoGradGuard noGrad;
  ++steps_;
  if (fusedUpdate_) {
    const fused::AdamWStep hyper{options_.learningRate, options_.beta1,       options_.beta2,
                                 options_.epsilon,      options_.weightDecay, steps_};
    return at::scalar_tensor(fused::clippedAdamW(values_, gradients_, expAvg_, expAvgSq_,
                                                 decayEnd_, hyper, maxNorm),
                             at::kFloat);
  }
  // The norm as clipGradientNorm sums it (per-tensor norms, then their norm):
  // one float32 reduction over the whole buffer drifts past 1e-6 on `tiny`.
  std::vector<at::Tensor> norms;
  for (const NamedTensor& parameter : named_) norms.push_back(parameter.tensor.grad().norm(2.0));
  const at::Tensor norm = at::stack(norms).norm(2.0);
  gradients_.mul_((maxNorm / (norm + 1e-6)).clamp_max(1.0));

  const double t = static_cast<double>(steps_);
  const double stepSize = options_.learningRate / (1.0 - std::pow(options_.beta1, t));
  const double correction2Sqrt = std::sqrt(1.0 - std::pow(options_.beta2, t));
  values_.narrow(0, 0, decayEnd_).mul_(1.0 - options_.learningRate * options_.weightDecay);
  expAvg_.mul_(options_.beta1).add_(gradients_, 1.0 - options_.beta1);
  expAvgSq_.mul_(options_.beta2).addcmul_(gradients_, gradients_, 1.0 - options_.beta2);
  // One temporary the size of the buffer, divided and shifted in place: the
  // per-tensor step's (sqrt(v) / c).add_(eps) held two at once, which over the
  // whole buffer was the peak of a fully recomputed `small` (288.2 MiB against
  // 255.2 MiB). In-place division rounds exactly as the division it replaces.
  at::Tensor denominator = expAvgSq_.sqrt();
  denominator.div_(correction2Sqrt).add_(options_.epsilon);
  values_.addcdiv_(expAvg_, denominator, -stepSize);
  return norm;
}

void FlatParameters::zeroGrad() { gradients_.zero_(); }

std::vector<NamedTensor> FlatParameters::viewsOf(const at::Tensor& flat,
                                                 const std::string& prefix) const {
  std::vector<NamedTensor> views;
  for (std::size_t i = 0; i < named_.size(); ++i) {
    views.push_back({prefix + named_[i].name, viewAt(flat, offsets_[i], named_[i].tensor)});
  }
  return views;
}

std::vector<NamedTensor> FlatParameters::state() const {
  std::vector<NamedTensor> state = viewsOf(expAvg_, "exp_avg.");
  for (NamedTensor& entry : viewsOf(expAvgSq_, "exp_avg_sq.")) state.push_back(std::move(entry));
  return state;
}

void FlatParameters::restore(const std::vector<NamedTensor>& saved, std::int64_t stepCount) {
  at::NoGradGuard noGrad;
  std::unordered_map<std::string, const at::Tensor*> byName;
  for (const NamedTensor& entry : saved) byName[entry.name] = &entry.tensor;
  for (NamedTensor& view : state()) {
    const auto found = byName.find(view.name);
    if (found == byName.end() || !found->second->sizes().equals(view.tensor.sizes())) {
      throw std::invalid_argument("optimizer state has no matching tensor " + view.name);
    }
    view.tensor.copy_(*found->second);
  }
  steps_ = stepCount;
}

}  // namespace tb::engine
