// Candidates are priced by the predictor and the FLOP-based step time; the
// cheapest in time that fits wins, and ties go to the smaller peak. Besides
// the curve (K full blocks) and plain selective, every selective module set,
// alone or behind K full blocks, competes: a budget that K full blocks meet
// only at a high K is often met by rebuilding cheap parts of every block. The
// curve is computed in full even when an early K fits, because the GUI plots
// it and a user may prefer more headroom than the margin.
#include "tb/memory/planner.hpp"

#include <algorithm>
#include <cmath>

#include "memory_terms.hpp"

namespace tb::memory {
namespace {

struct Candidate {
  RecomputePolicy policy;
  CurvePoint point;
};

std::uint64_t corrected(std::uint64_t bytes, double scale, std::int64_t offset) {
  const double value = static_cast<double>(bytes) * scale + static_cast<double>(offset);
  return value <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(value));
}

}  // namespace

std::optional<std::int64_t> curveK(const RecomputePlan& plan) {
  if (!plan.fits || plan.curve.empty()) return std::nullopt;
  switch (plan.policy.kind) {
    case RecomputeKind::None: return 0;
    case RecomputeKind::Layers:
      if (plan.policy.modules != 0) break;  // K blocks plus modules in the rest
      return plan.policy.layers;
    case RecomputeKind::Full: return plan.curve.back().k;
    case RecomputeKind::Selective:
    case RecomputeKind::Op:
    case RecomputeKind::Every:
    case RecomputeKind::Uniform: break;
  }
  return std::nullopt;
}

Expected<RecomputePlan> planRecompute(const PredictionInput& input, std::uint64_t budgetBytes,
                                      double margin, std::int64_t calibrationOffset,
                                      double calibrationScale) {
  if (!(margin >= 0.0 && margin < 1.0)) {
    return makeError(ErrorKind::BadInput, "--margin: " + std::to_string(margin) +
                                              " is not a fraction in [0, 1)");
  }
  if (budgetBytes == 0) {
    return makeError(ErrorKind::BadInput, "--gpu-memory: the budget must be above zero");
  }
  PredictionInput probe = input;
  probe.recompute = {RecomputeKind::None, 0};
  auto none = predictMemory(probe);
  if (!none) return none.error();

  std::vector<Candidate> candidates;
  const auto price = [&](RecomputePolicy policy, std::int64_t k) -> Status {
    probe.recompute = policy;
    auto prediction = predictMemory(probe);
    if (!prediction) return prediction.error();
    candidates.push_back(
        {policy,
         {k, corrected(prediction->totalBytes, calibrationScale, calibrationOffset),
          prediction->timeRatio}});
    return {};
  };
  for (std::int64_t k = 0; k <= none->stageLayers; ++k) {
    const RecomputePolicy policy = k == 0 ? RecomputePolicy{RecomputeKind::None, 0}
                                          : RecomputePolicy{RecomputeKind::Layers, k};
    if (Status priced = price(policy, k); !priced) return priced.error();
  }
  if (Status priced = price({RecomputeKind::Selective, 0}, -1); !priced) return priced.error();
  const std::size_t selectiveAt = candidates.size() - 1;
  // Off the curve: every other module set, alone and behind K full blocks
  // (Megatron's recompute_modules; layers:K+selective:MODULES).
  // The head module is offered where it changes something (the engine's plain
  // float32 step); elsewhere it would only repeat every candidate.
  const std::uint8_t lastModules =
      detail::headModuleChangesStep(input.profile, input.parallel, input.compiledStep)
          ? model::kAllRecomputeModules
          : model::kBlockRecomputeModules;
  for (std::uint8_t modules = 1; modules <= lastModules; ++modules) {
    // Behind every block rebuilt whole only the head has anything left to rebuild.
    const std::int64_t lastK = modules == model::kOutputHead ? none->stageLayers
                                                             : none->stageLayers - 1;
    for (std::int64_t k = 0; k <= lastK; ++k) {
      if (k == 0 && modules == model::kCoreAttention) continue;  // plain selective, above
      const RecomputePolicy policy = k == 0 ? RecomputePolicy{RecomputeKind::Selective, 0, modules}
                                            : RecomputePolicy{RecomputeKind::Layers, k, modules};
      if (Status priced = price(policy, -2); !priced) return priced.error();
    }
  }

  // torchtitan's own policies, which its job file can name: per-op
  // checkpointing, and every N-th block rebuilt (selective_ac_option N).
  if (input.profile == Profile::Torchtitan) {
    if (Status priced = price({RecomputeKind::Op, 0}, -2); !priced) return priced.error();
    for (std::int64_t n = 2; n <= none->stageLayers; ++n) {
      if (Status priced = price({RecomputeKind::Every, n}, -2); !priced) return priced.error();
    }
  }

  RecomputePlan plan;
  plan.budgetBytes = budgetBytes;
  plan.margin = margin;
  for (const Candidate& candidate : candidates) {
    if (candidate.point.k >= 0) plan.curve.push_back(candidate.point);
  }
  plan.selective = candidates[selectiveAt].point;

  const double usable = static_cast<double>(budgetBytes) * (1.0 - margin);
  // A torchtitan job can be told none, full, op or every:N, nothing else;
  // the others stay on the curve to show the trade-off, but are not chosen.
  const auto expressible = [&](const RecomputePolicy& policy) {
    if (input.profile != Profile::Torchtitan) return true;
    switch (policy.kind) {
      case RecomputeKind::None:
      case RecomputeKind::Full:
      case RecomputeKind::Op:
      case RecomputeKind::Every: return true;
      case RecomputeKind::Layers:
        return policy.modules == 0 && (policy.layers == 0 || policy.layers == none->stageLayers);
      case RecomputeKind::Selective:
      case RecomputeKind::Uniform: break;
    }
    return false;
  };
  const Candidate* best = nullptr;
  std::uint64_t smallest = UINT64_MAX;
  for (const Candidate& candidate : candidates) {
    if (!expressible(candidate.policy)) continue;
    smallest = std::min(smallest, candidate.point.peakBytes);
    if (static_cast<double>(candidate.point.peakBytes) > usable) continue;
    const bool better =
        best == nullptr || candidate.point.timeRatio < best->point.timeRatio ||
        (candidate.point.timeRatio == best->point.timeRatio &&
         candidate.point.peakBytes < best->point.peakBytes);
    if (better) best = &candidate;
  }
  plan.smallestBudgetBytes =
      static_cast<std::uint64_t>(std::ceil(static_cast<double>(smallest) / (1.0 - margin)));
  if (best == nullptr) return plan;
  const Candidate* next = nullptr;
  for (const Candidate& candidate : candidates) {
    if (!expressible(candidate.policy)) continue;
    if (candidate.point.timeRatio >= best->point.timeRatio) continue;
    const bool closer = next == nullptr || candidate.point.timeRatio > next->point.timeRatio ||
                        (candidate.point.timeRatio == next->point.timeRatio &&
                         candidate.point.peakBytes < next->point.peakBytes);
    if (closer) next = &candidate;
  }
  if (next != nullptr) {
    plan.nextCheaper = next->policy;
    plan.nextCheaperPoint = next->point;
  }
  plan.fits = true;
  plan.policy = best->policy;
  // layers:K with K = all blocks is what `full` means; say it that way.
  if (plan.policy.kind == RecomputeKind::Layers && plan.policy.layers == none->stageLayers &&
      plan.policy.modules == 0) {
    plan.policy = {RecomputeKind::Full, 0};
  }
  plan.predictedPeakBytes = best->point.peakBytes;
  plan.timeOverheadRatio = best->point.timeRatio - 1.0;
  return plan;
}

}  // namespace tb::memory
