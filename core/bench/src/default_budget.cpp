// The budget is derived from predictions, not from a measurement, so it is
// known before the first child starts and printed with the schedule. The
// planner's own margin is respected so that `--recompute auto` at this budget
// never has to refuse the model.
#include "tb/bench/default_budget.hpp"

#include <algorithm>
#include <cmath>

#include "tb/memory/planner.hpp"
#include "tb/memory/predictor.hpp"

namespace tb::bench {
namespace {

Expected<std::uint64_t> predictedPeak(const model::ModelConfig& model, memory::RecomputeKind kind,
                                      bool cuda, int ranks) {
  memory::PredictionInput input;
  input.model = model;
  input.parallel.dtype = cuda ? memory::DType::Bf16 : memory::DType::Fp32;
  input.parallel.dp = ranks;
  input.recompute.kind = kind;
  input.profile = memory::Profile::Engine;
  Expected<memory::MemoryPrediction> prediction = memory::predictMemory(input);
  if (!prediction) return std::move(prediction).error();
  return prediction->totalBytes;
}

}  // namespace

Expected<BudgetChoice> defaultMemoryBudget(const model::ModelConfig& model, bool cuda, int ranks) {
  Expected<std::uint64_t> full = predictedPeak(model, memory::RecomputeKind::Full, cuda, ranks);
  if (!full) return std::move(full).error();
  Expected<std::uint64_t> none = predictedPeak(model, memory::RecomputeKind::None, cuda, ranks);
  if (!none) return std::move(none).error();
  BudgetChoice choice;
  choice.fullRecomputePeakBytes = *full;
  choice.noRecomputePeakBytes = std::max(*none, *full);
  const double gap = static_cast<double>(choice.noRecomputePeakBytes - *full);
  const double shared = static_cast<double>(*full) + kDefaultBudgetGapShare * gap;
  const double fitsFull = static_cast<double>(*full) / (1.0 - memory::kDefaultPlanMargin);
  choice.budgetBytes = static_cast<std::uint64_t>(std::ceil(std::max(shared, fitsFull)));
  return choice;
}

}  // namespace tb::bench
