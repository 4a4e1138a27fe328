// One computed state of the Memory page: the prediction for the chosen
// policy and the planner's answer for the chosen card. It is a plain value
// so a worker thread can produce it and the GUI thread only display it.
#pragma once

#include <QString>
#include <QVector>

#include <optional>

#include "plotting/breakdown_bar_chart.h"
#include "plotting/tradeoff_chart.h"
#include "tb/memory/planner.hpp"
#include "ui/memory/memory_page_inputs.h"

namespace tb::ui {

/// The prediction and plan for one set of inputs.
struct MemoryView {
  QString error;  ///< non-empty when the inputs are bad; names the bad value
  tb::memory::PredictionInput input;
  QString runtime;  ///< the engine runtime predicted ("tuned", "stock"); empty for clusters
  tb::memory::MemoryPrediction prediction;
  tb::memory::RecomputePlan plan;
  std::uint64_t budgetBytes = 0;
  QString cardLabel;       ///< "H100 80GB" or "Custom 30 GiB"
  double computeMs = 0.0;  ///< how long prediction and plan took

  [[nodiscard]] bool ok() const { return error.isEmpty(); }
};

/// Predicts and plans (pure; safe on any thread).
[[nodiscard]] MemoryView computeMemoryView(const MemoryPageInputs& inputs);

/// The predictor's terms in display order with their names.
[[nodiscard]] QVector<tb::plotting::BreakdownTerm> breakdownTerms(
    const tb::memory::MemoryBreakdown& breakdown);

/// The plan's curve, budget and choice as the trade-off chart wants them.
[[nodiscard]] tb::plotting::TradeoffData tradeoffData(const MemoryView& view);

/// The planner's choice when it is not a point of the K curve (any selective
/// module set, alone or behind K full blocks): its name and point.
struct OffCurveChoice {
  QString policy;
  tb::memory::CurvePoint point;
};
[[nodiscard]] std::optional<OffCurveChoice> offCurveChoice(const tb::memory::RecomputePlan& plan);

/// The recommendation as --recompute spells it; empty when nothing fits.
[[nodiscard]] QString recommendedPolicy(const tb::memory::RecomputePlan& plan);

/// "+8.1 %" for a ratio of 1.081
[[nodiscard]] QString formatTimeRatio(double ratio);

}  // namespace tb::ui
