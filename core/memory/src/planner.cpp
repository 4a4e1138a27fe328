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

/// Prices candidate policies for one input: the predictor's peak, corrected
/// by the calibration, and the FLOP-based step time.
struct CandidatePricer {
  PredictionInput probe;  ///< the input, its policy replaced by each candidate's
  std::int64_t calibrationOffset = 0;
  double calibrationScale = 1.0;
  std::vector<Candidate> candidates;
  std::size_t selectiveAt = 0;  ///< where plain selective is in candidates
};

/// Prices `policy` and adds it to the candidates; `k` places it on the curve
/// (-1 plain selective, -2 the other off-curve candidates).
Status priceCandidate(CandidatePricer& pricer, const RecomputePolicy& policy, std::int64_t k) {
  pricer.probe.recompute = policy;
  auto prediction = predictMemory(pricer.probe);
  if (!prediction) return prediction.error();
  pricer.candidates.push_back(
      {.policy = policy,
       .point = {.k = k,
                 .peakBytes = corrected(prediction->totalBytes, pricer.calibrationScale,
                                        pricer.calibrationOffset),
                 .timeRatio = prediction->timeRatio}});
  return {};
}

/// The curve (K full blocks, K = 0 is none) and plain selective.
Status priceCurveAndSelective(CandidatePricer& pricer, std::int64_t stageLayers) {
  for (std::int64_t k = 0; k <= stageLayers; ++k) {
    const RecomputePolicy policy = k == 0 ? RecomputePolicy{RecomputeKind::None, 0}
                                          : RecomputePolicy{RecomputeKind::Layers, k};
    if (Status priced = priceCandidate(pricer, policy, k); !priced) return priced;
  }
  if (Status priced = priceCandidate(pricer, {RecomputeKind::Selective, 0}, -1); !priced) {
    return priced;
  }
  pricer.selectiveAt = pricer.candidates.size() - 1;
  return {};
}

/// Off the curve: every other module set, alone and behind K full blocks
/// (Megatron's recompute_modules; layers:K+selective:MODULES).
Status priceModuleSets(CandidatePricer& pricer, const PredictionInput& input,
                       std::int64_t stageLayers) {
  // The head module is offered where it changes something (the engine's plain
  // float32 step); elsewhere it would only repeat every candidate.
  const std::uint8_t lastModules =
      detail::headModuleChangesStep(input.profile, input.parallel, input.compiledStep)
          ? model::kAllRecomputeModules
          : model::kBlockRecomputeModules;
  for (std::uint8_t modules = 1; modules <= lastModules; ++modules) {
    // Behind every block rebuilt whole only the head has anything left to rebuild.
    const std::int64_t lastK = modules == model::kOutputHead ? stageLayers : stageLayers - 1;
    for (std::int64_t k = 0; k <= lastK; ++k) {
      if (k == 0 && modules == model::kCoreAttention) continue;  // plain selective, above
      const RecomputePolicy policy = k == 0 ? RecomputePolicy{RecomputeKind::Selective, 0, modules}
                                            : RecomputePolicy{RecomputeKind::Layers, k, modules};
      if (Status priced = priceCandidate(pricer, policy, -2); !priced) return priced;
    }
  }
  return {};
}

/// torchtitan's own policies, which its job file can name: per-op
/// checkpointing, and every N-th block rebuilt (selective_ac_option N).
Status priceTorchtitanPolicies(CandidatePricer& pricer, std::int64_t stageLayers) {
  if (Status priced = priceCandidate(pricer, {RecomputeKind::Op, 0}, -2); !priced) return priced;
  for (std::int64_t n = 2; n <= stageLayers; ++n) {
    if (Status priced = priceCandidate(pricer, {RecomputeKind::Every, n}, -2); !priced) {
      return priced;
    }
  }
  return {};
}

/// Every candidate the plan chooses among, in the order ties are settled.
Status priceAllCandidates(CandidatePricer& pricer, const PredictionInput& input,
                          std::int64_t stageLayers) {
  if (Status priced = priceCurveAndSelective(pricer, stageLayers); !priced) return priced;
  if (Status priced = priceModuleSets(pricer, input, stageLayers); !priced) return priced;
  if (input.profile == Profile::Torchtitan) {
    if (Status priced = priceTorchtitanPolicies(pricer, stageLayers); !priced) return priced;
  }
  return {};
}

/// What decides which priced candidates may be chosen.
struct ChoiceRules {
  Profile profile = Profile::Engine;
  std::int64_t stageLayers = 0;  ///< blocks per stage: layers:K at this K is `full`
  double usable = 0;             ///< the budget less the margin
};

/// A framework's job can be told only the policies its settings spell
/// (frameworkSpelling: Megatron's one granularity, torchtitan's modes, the
/// others' on/off switch); the others stay on the curve to show the
/// trade-off, but are not chosen. The engine runs every candidate.
bool jobCanExpress(const ChoiceRules& rules, const RecomputePolicy& policy) {
  if (rules.profile == Profile::Engine) return true;
  RecomputePolicy named = policy;
  // The curve's ends are none and full in every framework's words.
  if (named.kind == RecomputeKind::Layers && named.modules == 0) {
    if (named.layers == 0) named = {RecomputeKind::None, 0};
    if (named.layers == rules.stageLayers) named = {RecomputeKind::Full, 0};
  }
  return !frameworkSpelling(rules.profile, named).empty();
}

/// The fastest expressible candidate that fits (ties to the smaller peak),
/// and the smallest peak of any expressible candidate.
struct Choice {
  const Candidate* best = nullptr;
  std::uint64_t smallest = UINT64_MAX;
};

Choice chooseFastestFitting(const std::vector<Candidate>& candidates, const ChoiceRules& rules) {
  Choice choice;
  for (const Candidate& candidate : candidates) {
    if (!jobCanExpress(rules, candidate.policy)) continue;
    choice.smallest = std::min(choice.smallest, candidate.point.peakBytes);
    if (static_cast<double>(candidate.point.peakBytes) > rules.usable) continue;
    const Candidate* best = choice.best;
    const bool better = best == nullptr || candidate.point.timeRatio < best->point.timeRatio ||
                        (candidate.point.timeRatio == best->point.timeRatio &&
                         candidate.point.peakBytes < best->point.peakBytes);
    if (better) choice.best = &candidate;
  }
  return choice;
}

/// The expressible candidate next below `best` in step time (ties to the
/// smaller peak); null when `best` is the fastest.
const Candidate* nextCheaperCandidate(const std::vector<Candidate>& candidates,
                                      const ChoiceRules& rules, const Candidate& best) {
  const Candidate* next = nullptr;
  for (const Candidate& candidate : candidates) {
    if (!jobCanExpress(rules, candidate.policy)) continue;
    if (candidate.point.timeRatio >= best.point.timeRatio) continue;
    const bool closer = next == nullptr || candidate.point.timeRatio > next->point.timeRatio ||
                        (candidate.point.timeRatio == next->point.timeRatio &&
                         candidate.point.peakBytes < next->point.peakBytes);
    if (closer) next = &candidate;
  }
  return next;
}

/// Writes the fitting choice, and the next cheaper candidate when there is one, into `plan`.
void recordChoice(RecomputePlan& plan, const Candidate& best, const Candidate* next,
                  std::int64_t stageLayers) {
  if (next != nullptr) {
    plan.nextCheaper = next->policy;
    plan.nextCheaperPoint = next->point;
  }
  plan.fits = true;
  plan.policy = best.policy;
  // layers:K with K = all blocks is what `full` means; say it that way.
  if (plan.policy.kind == RecomputeKind::Layers && plan.policy.layers == stageLayers &&
      plan.policy.modules == 0) {
    plan.policy = {RecomputeKind::Full, 0};
  }
  plan.predictedPeakBytes = best.point.peakBytes;
  plan.timeOverheadRatio = best.point.timeRatio - 1.0;
}

/// The planner's own arguments; the predictor checks the input.
Status checkPlanArguments(std::uint64_t budgetBytes, double margin) {
  if (!(margin >= 0.0 && margin < 1.0)) {
    return makeError(ErrorKind::BadInput,
                     "--margin: " + std::to_string(margin) + " is not a fraction in [0, 1)");
  }
  if (budgetBytes == 0) {
    return makeError(ErrorKind::BadInput, "--gpu-memory: the budget must be above zero");
  }
  return {};
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
  if (Status valid = checkPlanArguments(budgetBytes, margin); !valid) return valid.error();
  CandidatePricer pricer{.probe = input,
                         .calibrationOffset = calibrationOffset,
                         .calibrationScale = calibrationScale,
                         .candidates = {},
                         .selectiveAt = 0};
  pricer.probe.recompute = {RecomputeKind::None, 0};
  auto none = predictMemory(pricer.probe);
  if (!none) return none.error();
  const std::int64_t stageLayers = none->stageLayers;
  if (Status priced = priceAllCandidates(pricer, input, stageLayers); !priced) {
    return priced.error();
  }
  const std::vector<Candidate>& candidates = pricer.candidates;

  RecomputePlan plan;
  plan.budgetBytes = budgetBytes;
  plan.margin = margin;
  for (const Candidate& candidate : candidates) {
    if (candidate.point.k >= 0) plan.curve.push_back(candidate.point);
  }
  plan.selective = candidates[pricer.selectiveAt].point;

  const ChoiceRules rules{.profile = input.profile,
                          .stageLayers = stageLayers,
                          .usable = static_cast<double>(budgetBytes) * (1.0 - margin)};
  const Choice choice = chooseFastestFitting(candidates, rules);
  plan.smallestBudgetBytes =
      static_cast<std::uint64_t>(std::ceil(static_cast<double>(choice.smallest) / (1.0 - margin)));
  if (choice.best == nullptr) return plan;
  recordChoice(plan, *choice.best, nextCheaperCandidate(candidates, rules, *choice.best),
               stageLayers);
  return plan;
}

}  // namespace tb::memory
