// A single horizontal stacked bar: what one GPU holds at its peak, term by
// term, against a line at the card's capacity. One bar (not a pie) because
// the question is "how far past the line, and which term pushes it there".
#pragma once

#include <QString>
#include <QVector>

#include "plotting/themed_chart.h"
#include "plotting/qcustomplot_include.h"

namespace tb::plotting {

/// One segment of the bar.
struct BreakdownTerm {
  QString name;
  double bytes = 0.0;
  /// Reserved by the caching allocator but held by no tensor: drawn hatched
  /// in a neutral colour, apart from the tensors' colours.
  bool cache = false;
};

/// The colour term `index` is drawn in; the page's table shows the same.
[[nodiscard]] QColor breakdownTermColor(const ChartTheme& theme, int index,
                                        const BreakdownTerm& term);

/// The stacked bar of a memory breakdown with a capacity line; hover shows a
/// term's size and share, right click exports.
class BreakdownBarChart : public ThemedChart {
  Q_OBJECT

 public:
  explicit BreakdownBarChart(QWidget* parent = nullptr);

  /// Shows `terms` (zero-byte terms are left out of the bar) against a card
  /// of `capacityBytes` called `capacityLabel` (no line when capacity is 0).
  void setBreakdown(const QVector<BreakdownTerm>& terms, double capacityBytes,
                    const QString& capacityLabel);

  /// Sum of the terms shown, in bytes.
  [[nodiscard]] double totalBytes() const { return total_; }
  [[nodiscard]] double capacityBytes() const { return capacity_; }
  /// Segments drawn (non-zero terms), bottom of the stack first.
  [[nodiscard]] QStringList segmentNames() const;
  /// The tooltip text at a widget position, empty when no segment is there.
  [[nodiscard]] QString toolTipAt(const QPointF& position) const override;

  /// The legend's three-column width is not a minimum: a narrower chart
  /// wraps it onto more rows (fitLegend), so a page with long term names
  /// never has to scroll sideways for it.
  [[nodiscard]] QSize minimumSizeHint() const override;

 private:
  void rebuild() override;

  QVector<BreakdownTerm> terms_;
  QVector<QCPBars*> bars_;
  double total_ = 0.0;
  double capacity_ = 0.0;
  QString capacityLabel_;
};

}  // namespace tb::plotting
