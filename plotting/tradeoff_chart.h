// The recompute trade-off: for each K (blocks fully recomputed) the predicted
// peak on the left axis and the relative step time on the right, with the
// budget line and the planner's choice marked, so a user sees at a glance
// how much time each GiB saved costs and where the budget cuts the curve.
#pragma once

#include <QString>
#include <QVector>

#include <optional>

#include "plotting/themed_chart.h"
#include "plotting/qcustomplot_include.h"

namespace tb::plotting {

/// One K of the curve.
struct TradeoffPoint {
  int k = 0;
  double peakBytes = 0.0;
  double timeRatio = 1.0;  ///< step time relative to no recomputation
};

/// What the chart shows.
struct TradeoffData {
  QVector<TradeoffPoint> curve;            ///< k = 0 .. L
  double budgetBytes = 0.0;                ///< the card's memory
  double usableBytes = 0.0;                ///< budget less the planner's margin
  std::optional<TradeoffPoint> selective;  ///< selective recomputation, drawn as a level
  /// The level's name: "selective", or the off-curve policy the planner chose
  /// ("layers:2+selective:core_attn,layernorm,mlp_act").
  QString selectiveName = QStringLiteral("selective");
  std::optional<int> recommendedK;    ///< the planner's K, when it chose K layers
  bool selectiveRecommended = false;  ///< the planner chose the level's policy
};

/// Peak memory and step time against K, dual axes; hover shows a point's
/// numbers, right click exports.
class TradeoffChart : public ThemedChart {
  Q_OBJECT

 public:
  explicit TradeoffChart(QWidget* parent = nullptr);

  void setData(const TradeoffData& data);
  [[nodiscard]] const TradeoffData& data() const { return data_; }

  /// Points on the peak curve (one per K).
  [[nodiscard]] int pointCount() const;
  /// The K the marker sits on, if a K is recommended.
  [[nodiscard]] std::optional<int> markedK() const;
  /// The tooltip text at a widget position, empty away from the curve.
  [[nodiscard]] QString toolTipAt(const QPointF& position) const override;

 private:
  void rebuild() override;
  /// Where a level's label sits against its line.
  enum class LabelAt { RightAbove, RightBelow, LeftBelow };
  /// A horizontal line at `bytes` labelled `text` where `at` says.
  void addLevel(double bytes, const QPen& pen, const QString& text, LabelAt at);

  TradeoffData data_;
  QCPGraph* peak_ = nullptr;
  QCPGraph* time_ = nullptr;
  QCPGraph* marker_ = nullptr;
};

}  // namespace tb::plotting
