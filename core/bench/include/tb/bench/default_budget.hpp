// The memory budget an ablation runs at when the user gives none. It has to
// let Base (every block recomputed) fit and still leave CkptOpt room to keep
// some activations, or the last step of the chain would measure nothing.
#pragma once

#include <cstdint>

#include "tb/common/expected.hpp"
#include "tb/model/model_config.hpp"

namespace tb::bench {

/// Share of the gap between the full-recompute and the no-recompute peak
/// that the default budget adds on top of the full-recompute peak: half, so
/// the planner can keep about half of the blocks' activations.
inline constexpr double kDefaultBudgetGapShare = 0.5;

/// The default budget and the two predictions it comes from (engine profile,
/// in the dtype the engine trains in on the device: fp32 on a CPU, bf16 on CUDA).
struct BudgetChoice {
  std::uint64_t budgetBytes = 0;
  std::uint64_t fullRecomputePeakBytes = 0;  ///< what Base is predicted to need
  std::uint64_t noRecomputePeakBytes = 0;    ///< what keeping everything would need
};

/// full + kDefaultBudgetGapShare * (none - full), raised where needed so that
/// full recomputation fits inside the planner's margin; per rank of `ranks`
/// data-parallel ones. Bad shapes are BadInput.
[[nodiscard]] Expected<BudgetChoice> defaultMemoryBudget(const model::ModelConfig& model,
                                                         bool cuda = false, int ranks = 1);

}  // namespace tb::bench
