// The page plans without a stored calibration on purpose: it shows the
// analytic model the CLI's `plan` shows by default, so the two agree number
// for number and a user can reproduce any figure from the command line.
#include "ui/memory/memory_view.h"

#include <QCoreApplication>

#include <chrono>

#include "ui/qt_text.h"

namespace tb::ui {
namespace {

QString term(const char* text) { return QCoreApplication::translate("tb::ui::MemoryPage", text); }

QString cardLabel(const MemoryPageInputs& inputs) {
  if (inputs.card != customCardName()) return inputs.card;
  return term("Custom %1 GiB").arg(QString::number(inputs.customGiB, 'g', 4));
}

}  // namespace

MemoryView computeMemoryView(const MemoryPageInputs& inputs) {
  const auto start = std::chrono::steady_clock::now();
  MemoryView view;
  view.budgetBytes = budgetBytes(inputs);
  view.cardLabel = cardLabel(inputs);
  auto input = toPredictionInput(inputs);
  if (!input) {
    view.error = toQString(input.error().message);
    return view;
  }
  view.input = *input;
  if (view.input.profile == tb::memory::Profile::Engine) view.runtime = inputs.runtime;
  auto prediction = tb::memory::predictMemory(view.input);
  if (!prediction) {
    view.error = toQString(prediction.error().message);
    return view;
  }
  view.prediction = *prediction;
  auto plan = tb::memory::planRecompute(view.input, view.budgetBytes);
  if (!plan) {
    view.error = toQString(plan.error().message);
    return view;
  }
  view.plan = *plan;
  view.computeMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return view;
}

QVector<tb::plotting::BreakdownTerm> breakdownTerms(const tb::memory::MemoryBreakdown& b) {
  auto bytes = [](std::uint64_t value) { return static_cast<double>(value); };
  return {{term("Weights"), bytes(b.weights)},
          {term("Gradients"), bytes(b.gradients)},
          {term("Optimizer state"), bytes(b.optimizer)},
          {term("Activations"), bytes(b.activations)},
          {term("Logits and loss"), bytes(b.logits)},
          {term("Recompute transient"), bytes(b.recompute)},
          {term("Backward workspace"), bytes(b.workspace)},
          {term("Framework buffers"), bytes(b.overhead)},
          {term("Allocator cache"), bytes(b.allocatorCache), true}};
}

std::optional<OffCurveChoice> offCurveChoice(const tb::memory::RecomputePlan& plan) {
  if (!plan.fits || tb::memory::curveK(plan)) return std::nullopt;
  return OffCurveChoice{recommendedPolicy(plan),
                        {-1, plan.predictedPeakBytes, 1.0 + plan.timeOverheadRatio}};
}

QString recommendedPolicy(const tb::memory::RecomputePlan& plan) {
  return plan.fits ? toQString(tb::memory::toString(plan.policy)) : QString();
}

tb::plotting::TradeoffData tradeoffData(const MemoryView& view) {
  tb::plotting::TradeoffData data;
  const tb::memory::RecomputePlan& plan = view.plan;
  for (const tb::memory::CurvePoint& point : plan.curve) {
    data.curve.append(tb::plotting::TradeoffPoint{
        static_cast<int>(point.k), static_cast<double>(point.peakBytes), point.timeRatio});
  }
  data.budgetBytes = static_cast<double>(plan.budgetBytes);
  data.usableBytes = static_cast<double>(plan.budgetBytes) * (1.0 - plan.margin);
  const auto offCurve = offCurveChoice(plan);
  const tb::memory::CurvePoint& level = offCurve ? offCurve->point : plan.selective;
  if (!plan.curve.empty()) {
    data.selective =
        tb::plotting::TradeoffPoint{-1, static_cast<double>(level.peakBytes), level.timeRatio};
  }
  if (offCurve) data.selectiveName = offCurve->policy;
  if (const auto k = tb::memory::curveK(plan)) data.recommendedK = static_cast<int>(*k);
  data.selectiveRecommended = offCurve.has_value();
  return data;
}

QString formatTimeRatio(double ratio) {
  const double value = 100.0 * (ratio - 1.0);
  return (value >= 0.0 ? QStringLiteral("+") : QString()) + QString::number(value, 'f', 1) +
         QStringLiteral(" %");
}

}  // namespace tb::ui
