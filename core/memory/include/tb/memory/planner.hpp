// The recompute planner: for a memory budget, the cheapest policy (in step
// time) whose predicted peak fits with a stated margin, chosen among K fully
// recomputed blocks and selective recomputation, plus the whole trade-off
// curve so a user (or the GUI's chart) sees what each step of K buys.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/memory/predictor.hpp"

namespace tb::memory {

/// One point of the trade-off curve.
struct CurvePoint {
  std::int64_t k = 0;  ///< blocks fully recomputed per pipeline stage
  std::uint64_t peakBytes = 0;
  double timeRatio = 1.0;  ///< step time relative to no recomputation
};

/// What the planner recommends for one budget.
struct RecomputePlan {
  bool fits = false;       ///< some policy fits inside the budget and margin
  RecomputePolicy policy;  ///< the recommendation (meaningful when fits)
  std::uint64_t predictedPeakBytes = 0;
  std::uint64_t budgetBytes = 0;
  double margin = 0.0;                    ///< fraction of the budget kept free
  double timeOverheadRatio = 0.0;         ///< extra step time of the choice (0.07 = +7 %)
  std::uint64_t smallestBudgetBytes = 0;  ///< the least budget any policy fits in
  CurvePoint selective;                   ///< plain selective recomputation (k = -1)
  /// The candidate next below the choice in step time, which did not fit:
  /// what the margin and the budget cost (absent when the choice is the
  /// cheapest candidate or nothing fits). Its point's k is -1 for plain
  /// selective and -2 for the other off-curve candidates.
  std::optional<RecomputePolicy> nextCheaper;
  CurvePoint nextCheaperPoint;
  std::vector<CurvePoint> curve;  ///< k = 0 (none) .. blocks per stage (full)
};

/// The K of the curve the plan chose (none 0, full the last K); nullopt when
/// it chose an off-curve policy (any selective) or nothing fits.
[[nodiscard]] std::optional<std::int64_t> curveK(const RecomputePlan& plan);

/// Default share of the budget left free for what no model predicts exactly.
inline constexpr double kDefaultPlanMargin = 0.05;

/// Plans for `input` (its recompute policy is ignored). Errors are bad input.
[[nodiscard]] Expected<RecomputePlan> planRecompute(const PredictionInput& input,
                                                    std::uint64_t budgetBytes,
                                                    double margin = kDefaultPlanMargin,
                                                    std::int64_t calibrationOffset = 0,
                                                    double calibrationScale = 1.0);

}  // namespace tb::memory
