// Gradient clipping and AdamW over the flat buffers in two passes instead of
// the reference's ~10 tensor-op passes per parameter: pass 1 the squared norm
// of all gradients (fixed chunks summed in parallel, combined in chunk order,
// so the norm does not depend on the thread count), pass 2 the clip scale and
// the whole AdamW update per element. The per-element arithmetic and its order
// are those of AdamW::step after clipGradientNorm (adamw.cpp), in float32 like
// ATen's float kernels; only the norm is summed differently (one flat sum in
// double instead of a norm of per-tensor norms). The gradients are read, not
// scaled in place: the scale is applied as they are loaded.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "fused/cpu_kernels.hpp"
#include "fused/fused_ops.hpp"
#include "fused/vector_kernels.hpp"
#include "model/op_scope.hpp"

namespace tb::engine::fused {
namespace {

using cpu::AdamWConstants;

constexpr std::int64_t kNormChunk = 1 << 16;
constexpr std::int64_t kUpdateGrain = 1 << 14;

double squaredNorm(const float* g, std::int64_t n) {
  const auto sumOfSquares = cpu::vectorKernels().sumOfSquares;
  const std::int64_t chunks = (n + kNormChunk - 1) / kNormChunk;
  std::vector<double> partial(static_cast<std::size_t>(chunks), 0.0);
  at::parallel_for(0, chunks, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t chunk = begin; chunk < end; ++chunk) {
      const std::int64_t first = chunk * kNormChunk;
      partial[static_cast<std::size_t>(chunk)] =
          sumOfSquares(g + first, std::min(kNormChunk, n - first));
    }
  });
  double sum = 0.0;
  for (const double p : partial) sum += p;
  return sum;
}

AdamWConstants constantsFor(const AdamWStep& h, float clipScale) {
  const double t = static_cast<double>(h.step);
  const double correction1 = 1.0 - std::pow(h.beta1, t);
  const double correction2 = 1.0 - std::pow(h.beta2, t);
  return {static_cast<float>(1.0 - h.learningRate * h.weightDecay),
          static_cast<float>(h.beta1),
          static_cast<float>(1.0 - h.beta1),
          static_cast<float>(h.beta2),
          static_cast<float>(1.0 - h.beta2),
          static_cast<float>(std::sqrt(correction2)),
          static_cast<float>(h.epsilon),
          static_cast<float>(-(h.learningRate / correction1)),
          clipScale};
}

void requireFlat(const at::Tensor& t, std::int64_t n, const char* what) {
  cpu::requireFloatCpu(t, what);
  if (!t.is_contiguous() || t.numel() != n) {
    throw std::invalid_argument(std::string("fused clippedAdamW: ") + what + " has " +
                                std::to_string(t.numel()) + " elements" +
                                (t.is_contiguous() ? "" : " (not contiguous)") +
                                ", the parameters " + std::to_string(n));
  }
}

}  // namespace

double clippedAdamW(at::Tensor& params, const at::Tensor& grads, at::Tensor& expAvg,
                    at::Tensor& expAvgSq, std::int64_t decayEnd, const AdamWStep& hyper,
                    double maxNorm) {
  const std::int64_t n = params.numel();
  requireFlat(grads, n, "grads");
  requireFlat(expAvg, n, "expAvg");
  return clippedAdamWShard(params, grads, expAvg, expAvgSq, 0, decayEnd, hyper, maxNorm);
}

double clippedAdamWShard(at::Tensor& params, const at::Tensor& grads, at::Tensor& expAvg,
                         at::Tensor& expAvgSq, std::int64_t first, std::int64_t decayEnd,
                         const AdamWStep& hyper, double maxNorm) {
  const OpScope scope("tb::fused::clippedAdamW");
  const std::int64_t n = grads.numel();
  const std::int64_t shard = expAvg.numel();
  requireFlat(grads, n, "grads");
  requireFlat(expAvgSq, shard, "expAvgSq");
  if (!params.is_contiguous() || params.numel() < n || !expAvg.is_contiguous()) {
    throw std::invalid_argument("fused clippedAdamW: params (" + std::to_string(params.numel()) +
                                " elements) must be contiguous and cover the " + std::to_string(n) +
                                " gradients, the moments contiguous");
  }
  if (first < 0 || first > n || decayEnd < 0 || decayEnd > n) {
    throw std::invalid_argument("fused clippedAdamW: shard start " + std::to_string(first) +
                                " or decayEnd " + std::to_string(decayEnd) + " is outside [0, " +
                                std::to_string(n) + "]");
  }
  if (hyper.step < 1) {
    throw std::invalid_argument("fused clippedAdamW: step " + std::to_string(hyper.step) +
                                " must be at least 1");
  }
  const float* g = grads.data_ptr<float>();
  // As clipGradientNorm: a float32 norm, scale = min(maxNorm / (norm + 1e-6), 1).
  // Always the norm of every gradient, also for a shard: it is global.
  const float norm = static_cast<float>(std::sqrt(squaredNorm(g, n)));
  const float clipScale = std::min(static_cast<float>(maxNorm) / (norm + 1e-6F), 1.0F);
  const AdamWConstants constants = constantsFor(hyper, clipScale);
  const auto update = cpu::vectorKernels().adamWUpdate;
  // The moments are the shard's own, indexed from `first`.
  float* p = params.data_ptr<float>() + first;
  float* m = expAvg.data_ptr<float>();
  float* v = expAvgSq.data_ptr<float>();
  g += first;
  const std::int64_t count = std::min(shard, n - first);
  const std::int64_t decayed = std::clamp(decayEnd - first, std::int64_t{0}, count);
  at::parallel_for(0, count, kUpdateGrain, [&](std::int64_t begin, std::int64_t end) {
    // A range may straddle the end of the decay prefix: split it there.
    const std::int64_t split = std::clamp(decayed, begin, end);
    update(p + begin, g + begin, m + begin, v + begin, split - begin, true, constants);
    update(p + split, g + split, m + split, v + split, end - split, false, constants);
  });
  return static_cast<double>(norm);
}

}  // namespace tb::engine::fused
