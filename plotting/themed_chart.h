// The behaviour every interactive chart shares: it keeps its theme in step
// with the palette (a switch to dark mode reaches open charts) and shows the
// numbers under the mouse. Charts say what to draw and what to tell; this
// base says when.
#pragma once

#include "plotting/chart_theme.h"
#include "plotting/qcustomplot_include.h"

namespace tb::plotting {

/// A QCustomPlot that rebuilds on palette changes and shows hover tooltips.
class ThemedChart : public QCustomPlot {
  Q_OBJECT

 public:
  explicit ThemedChart(QWidget* parent = nullptr);

  /// The tooltip text at a widget position, empty when nothing is there.
  [[nodiscard]] virtual QString toolTipAt(const QPointF& position) const = 0;

 protected:
  /// Draws the chart again from its data with the current theme().
  virtual void rebuild() = 0;
  [[nodiscard]] const ChartTheme& theme() const { return theme_; }

  /// From now on the legend takes as many columns (at most `maxColumns`) as
  /// its widest entry allows at the chart's width, wrapping onto more rows
  /// instead of running past the edge; refitted on every resize.
  void setLegendColumnLimit(int maxColumns);
  /// Refits the legend to the limit (after a rebuild changed its entries);
  /// nothing without a limit.
  void fitLegend();

  void changeEvent(QEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  ChartTheme theme_;
  int legendColumnLimit_ = 0;  ///< 0: the chart sets its legend's wrap itself
};

}  // namespace tb::plotting
