// Turning a requested recompute policy into the one a run uses. Only auto
// needs thought: it asks core/memory's planner (engine profile) for the least
// recomputation whose predicted peak fits the run's memory budget, so the
// engine and `trainbench plan` give the same answer for the same model.
#pragma once

#include <cstdint>
#include <string>

#include "tb/common/expected.hpp"
#include "tb/engine/run_config.hpp"
#include "tb/memory/memory_options.hpp"

namespace tb::engine {

/// The policy a run uses and why.
struct RecomputeChoice {
  RecomputePolicy requested;
  RecomputePolicy policy;                ///< never Auto; layers:0 is none, layers:L full
  std::string reason;                    ///< one sentence for events and logs
  std::uint64_t predictedPeakBytes = 0;  ///< the engine profile's prediction for `policy`
  double timeOverheadRatio = 0.0;        ///< predicted extra step time (0.2 = +20 %)
};

/// The engine's policy as core/memory spells it, and back (Auto has no
/// memory spelling and maps to none).
[[nodiscard]] memory::RecomputePolicy toMemoryPolicy(const RecomputePolicy& policy);
[[nodiscard]] RecomputePolicy fromMemoryPolicy(const memory::RecomputePolicy& policy);

/// Resolves config.recompute for config.model on `device` under
/// config.memoryBudgetBytes. BadInput when layers:K passes the model's blocks
/// or when auto finds no policy that fits the budget (naming the least that would).
[[nodiscard]] Expected<RecomputeChoice> chooseRecompute(const RunConfig& config);

}  // namespace tb::engine
