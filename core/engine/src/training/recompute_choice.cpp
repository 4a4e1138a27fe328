// The planner's margin (5 % of the budget) is kept for auto: the tracking
// allocator refuses the first byte past the budget, and the prediction is
// accurate to a few per cent, not exactly. Without a budget nothing needs to
// fit, so auto keeps everything, which is the fastest policy.
#include "training/recompute_choice.hpp"

#include "tb/memory/planner.hpp"
#include "tb/memory/predictor.hpp"

namespace tb::engine {
namespace {

// layers:0 recomputes nothing (or is plain selective) and layers:L
// everything; say so.
RecomputePolicy normalised(RecomputePolicy policy, std::int64_t layers) {
  if (policy.mode != RecomputeMode::Layers) return policy;
  if (policy.layers == layers) return {RecomputeMode::Full, 0};
  if (policy.layers == 0) {
    return policy.modules != 0 ? RecomputePolicy{RecomputeMode::Selective, 0, policy.modules}
                               : RecomputePolicy{RecomputeMode::None, 0};
  }
  return policy;
}

memory::PredictionInput predictionInput(const RunConfig& config, const RecomputePolicy& policy) {
  memory::PredictionInput input;
  input.model = config.model;
  input.parallel.dtype = config.device == Device::Cuda ? memory::DType::Bf16 : memory::DType::Fp32;
  // Each rank's own peak: data parallelism adds a gradient copy to per-tensor runs.
  if (config.dataParallel) input.parallel.dp = config.dataParallel->launch.worldSize;
  input.recompute = toMemoryPolicy(policy);
  input.profile = memory::Profile::Engine;
  // The compiled step keeps far less per block (no attention probabilities,
  // no full logits), so the planner must know it to recompute only what the
  // budget needs.
  input.compiledStep = config.compile;
  input.flatGradients = config.runtime.flatGradients;
  input.gqaInPlace = config.runtime.gqaInPlace;
  return input;
}

std::string bytesText(std::uint64_t bytes) { return std::to_string(bytes) + " bytes"; }

}  // namespace

memory::RecomputePolicy toMemoryPolicy(const RecomputePolicy& policy) {
  switch (policy.mode) {
    case RecomputeMode::Selective: return {memory::RecomputeKind::Selective, 0, policy.modules};
    case RecomputeMode::Layers:
      return {memory::RecomputeKind::Layers, policy.layers, policy.modules};
    case RecomputeMode::Full: return {memory::RecomputeKind::Full, 0};
    case RecomputeMode::None:
    case RecomputeMode::Auto: break;
  }
  return {memory::RecomputeKind::None, 0};
}

RecomputePolicy fromMemoryPolicy(const memory::RecomputePolicy& policy) {
  switch (policy.kind) {
    case memory::RecomputeKind::Selective: return {RecomputeMode::Selective, 0, policy.modules};
    case memory::RecomputeKind::Layers:
      return {RecomputeMode::Layers, policy.layers, policy.modules};
    case memory::RecomputeKind::Full: return {RecomputeMode::Full, 0};
    // The planner offers the engine none of the frameworks' own policies.
    case memory::RecomputeKind::None:
    case memory::RecomputeKind::Op:
    case memory::RecomputeKind::Every:
    case memory::RecomputeKind::Uniform: break;
  }
  return {RecomputeMode::None, 0};
}

Expected<RecomputeChoice> chooseRecompute(const RunConfig& config) {
  const RecomputePolicy& requested = config.recompute;
  const std::int64_t layers = config.model.layers;
  if (requested.mode == RecomputeMode::Layers && requested.layers > layers) {
    return makeError(ErrorKind::BadInput,
                     "--recompute: layers:" + std::to_string(requested.layers) +
                         " asks for more blocks than the model has (" + std::to_string(layers) +
                         ")");
  }
  RecomputeChoice choice;
  choice.requested = requested;
  if (requested.mode != RecomputeMode::Auto) {
    choice.policy = normalised(requested, layers);
    choice.reason = "requested";
  } else if (config.memoryBudgetBytes == 0) {
    choice.policy = {RecomputeMode::None, 0};
    choice.reason = "auto without a memory budget: nothing has to fit, keep every activation";
  } else {
    auto plan = memory::planRecompute(predictionInput(config, requested), config.memoryBudgetBytes);
    if (!plan) return plan.error();
    if (!plan->fits) {
      return makeError(ErrorKind::BadInput, "--recompute auto: no policy fits model " +
                                                config.model.name + " in the memory budget of " +
                                                bytesText(config.memoryBudgetBytes) +
                                                "; the least budget that fits is " +
                                                bytesText(plan->smallestBudgetBytes));
    }
    choice.policy = normalised(fromMemoryPolicy(plan->policy), layers);
    choice.reason = "auto: the least recomputation whose predicted peak fits " +
                    bytesText(config.memoryBudgetBytes) + " less a " +
                    std::to_string(static_cast<int>(plan->margin * 100.0 + 0.5)) + " % margin";
  }
  auto predicted = memory::predictMemory(predictionInput(config, choice.policy));
  if (!predicted) return predicted.error();
  choice.predictedPeakBytes = predicted->totalBytes;
  choice.timeOverheadRatio = predicted->timeRatio - 1.0;
  return choice;
}

}  // namespace tb::engine
