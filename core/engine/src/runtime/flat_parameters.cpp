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

FlatParameters::FlatParameters(DecoderWeights& weights, AdamWOptions options, bool fusedUpdate,
                               UpdateShard shard)
    : options_(options), fusedUpdate_(fusedUpdate), shard_(std::move(shard)) {
  if (shard_.count < 1 || shard_.index < 0 || shard_.index >= shard_.count ||
      (shard_.count > 1 && !shard_.gather)) {
    throw std::invalid_argument("flat parameters: shard " + std::to_string(shard_.index) + " of " +
                                std::to_string(shard_.count) +
                                " is not a shard (or it has no gather)");
  }
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
  total_ = total;
  shardElements_ = (total + shard_.count - 1) / shard_.count;
  const auto flatOptions = original.front().tensor.options().dtype(at::kFloat);
  // Padded to equal shards, so that the all-gather's pieces are equal; the
  // padding is zeros nobody reads.
  values_ = at::zeros({shardElements_ * shard_.count}, flatOptions.requires_grad(false));

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
  expAvg_ = at::zeros({shardElements_}, flatOptions.requires_grad(false));
  expAvgSq_ = at::zeros_like(expAvg_);
  for (std::size_t i = 0; i < named_.size(); ++i) {
    named_[i].tensor.mutable_grad() = viewAt(gradients_, offsets_[i], named_[i].tensor);
  }
}

at::Tensor FlatParameters::clipAndStep(double maxNorm) {
  at::NoGradGuard noGrad;
  ++steps_;
  at::Tensor norm;
  if (fusedUpdate_) {
    const fused::AdamWStep hyper{options_.learningRate, options_.beta1,       options_.beta2,
                                 options_.epsilon,      options_.weightDecay, steps_};
    norm = at::scalar_tensor(fused::clippedAdamWShard(values_, gradients_, expAvg_, expAvgSq_,
                                                      shardBegin(), decayEnd_, hyper, maxNorm),
                             at::kFloat);
  } else {
    // The norm as clipGradientNorm sums it (per-tensor norms, then their norm):
    // one float32 reduction over the whole buffer drifts past 1e-6 on `tiny`.
    // Every rank takes it over every gradient: the norm is global.
    std::vector<at::Tensor> norms;
    for (const NamedTensor& parameter : named_) norms.push_back(parameter.tensor.grad().norm(2.0));
    norm = at::stack(norms).norm(2.0);

    // This shard's elements, and the part of them that decays. Each op is
    // element-wise, so a shard computes exactly what the whole buffer would.
    const std::int64_t begin = std::min(shardBegin(), total_);
    const std::int64_t count = std::min(shardElements_, total_ - begin);
    const std::int64_t decayed = std::clamp(decayEnd_ - begin, std::int64_t{0}, count);
    at::Tensor values = values_.narrow(0, begin, count);
    at::Tensor gradients = gradients_.narrow(0, begin, count);
    at::Tensor expAvg = expAvg_.narrow(0, 0, count);
    at::Tensor expAvgSq = expAvgSq_.narrow(0, 0, count);
    gradients.mul_((maxNorm / (norm + 1e-6)).clamp_max(1.0));

    const double t = static_cast<double>(steps_);
    const double stepSize = options_.learningRate / (1.0 - std::pow(options_.beta1, t));
    const double correction2Sqrt = std::sqrt(1.0 - std::pow(options_.beta2, t));
    values.narrow(0, 0, decayed).mul_(1.0 - options_.learningRate * options_.weightDecay);
    expAvg.mul_(options_.beta1).add_(gradients, 1.0 - options_.beta1);
    expAvgSq.mul_(options_.beta2).addcmul_(gradients, gradients, 1.0 - options_.beta2);
    // One temporary the size of the shard, divided and shifted in place: the
    // per-tensor step's (sqrt(v) / c).add_(eps) held two at once, which over the
    // whole buffer was the peak of a fully recomputed `small` (288.2 MiB against
    // 255.2 MiB). In-place division rounds exactly as the division it replaces.
    at::Tensor denominator = expAvgSq.sqrt();
    denominator.div_(correction2Sqrt).add_(options_.epsilon);
    values.addcdiv_(expAvg, denominator, -stepSize);
  }
  if (shard_.count > 1) {
    shard_.gather(values_, "all-gather of the weights updated in step " + std::to_string(steps_));
  }
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

at::Tensor FlatParameters::wholeMoment(const at::Tensor& moment, const std::string& what) const {
  if (shard_.count == 1) return moment;
  at::Tensor whole = at::zeros({shardElements_ * shard_.count}, moment.options());
  whole.narrow(0, shardBegin(), shardElements_).copy_(moment);
  shard_.gather(whole, "all-gather of AdamW's " + what + " for a checkpoint");
  return whole;
}

std::vector<NamedTensor> FlatParameters::state() const {
  // Sharded, every rank must get here together: the moments are gathered.
  std::vector<NamedTensor> state = viewsOf(wholeMoment(expAvg_, "exp_avg"), "exp_avg.");
  for (NamedTensor& entry : viewsOf(wholeMoment(expAvgSq_, "exp_avg_sq"), "exp_avg_sq.")) {
    state.push_back(std::move(entry));
  }
  return state;
}

void FlatParameters::restore(const std::vector<NamedTensor>& saved, std::int64_t stepCount) {
  at::NoGradGuard noGrad;
  std::unordered_map<std::string, const at::Tensor*> byName;
  for (const NamedTensor& entry : saved) byName[entry.name] = &entry.tensor;
  // Each parameter's part of this shard, from the whole tensor saved.
  const std::int64_t begin = shardBegin();
  const std::int64_t end = begin + shardElements_;
  for (const auto& [prefix, moment] :
       {std::pair<std::string, at::Tensor>{"exp_avg.", expAvg_}, {"exp_avg_sq.", expAvgSq_}}) {
    for (std::size_t i = 0; i < named_.size(); ++i) {
      const std::string name = prefix + named_[i].name;
      const auto found = byName.find(name);
      if (found == byName.end() || !found->second->sizes().equals(named_[i].tensor.sizes())) {
        throw std::invalid_argument("optimizer state has no matching tensor " + name);
      }
      const std::int64_t lo = std::max(offsets_[i], begin);
      const std::int64_t hi = std::min(offsets_[i] + named_[i].tensor.numel(), end);
      if (lo >= hi) continue;
      moment.narrow(0, lo - begin, hi - lo)
          .copy_(found->second->reshape({-1}).narrow(0, lo - offsets_[i], hi - lo));
    }
  }
  steps_ = stepCount;
}

}  // namespace tb::engine
