// Every ablation chart is rebuilt from scratch on each change (new results,
// a toggle, a theme switch): there are at most a few dozen plottables, and
// one code path for data and theme keeps a dark-mode switch from leaving
// stale colours behind.
#include "plotting/ablation_charts.h"

#include <limits>

#include "plotting/ablation_series.h"
#include "plotting/chart_context_menu.h"
#include "plotting/plot_message.h"

namespace tb::plotting {

AblationChart::AblationChart(const QString& exportName, QWidget* parent) : ThemedChart(parent) {
  setMouseTracking(true);
  setMinimumSize(320, 220);
  // The legend takes a row of its own below the plot, where it hides no bar.
  axisRect()->insetLayout()->take(legend);
  plotLayout()->addElement(1, 0, legend);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(3);
  setLegendColumnLimit(std::numeric_limits<int>::max());  // as many as fit
  legend->setMargins(QMargins(6, 2, 6, 2));
  plotLayout()->setRowStretchFactor(1, 0.001);
  installExportMenu(*this, exportName);
  connect(this, &QCustomPlot::afterLayout, this, &AblationChart::fitChainLabels);
}

void AblationChart::setResults(const tb::bench::AblationResults& results) {
  results_ = results;
  rebuild();
}

void AblationChart::rebuild() {
  forget();
  legend->clearItems();  // keys that belong to no plottable (the loss chart's)
  clearPlottables();
  clearItems();
  seriesNames_.clear();
  for (QCPAxis* axis : {xAxis, yAxis, yAxis2}) {
    axis->setLabel({});
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    axis->setTickLabels(true);
    axis->setTicks(true);
    axis->setSubTicks(true);
    axis->setTickLength(5, 0);
  }
  xAxis->grid()->setVisible(true);
  yAxis2->setVisible(false);
  if (hasResults()) {
    drawResults();
  } else {
    useChainAxis();
    yAxis->setRange(0.0, 1.0);
    yAxis->setTickLabels(false);  // a scale of nothing would read as data
    showMessage(tr("No results loaded"));
  }
  // An empty legend still sizes the layout's one column, to its own few
  // pixels: the plot collapsed to a sliver with its category labels on top
  // of each other. It leaves the layout while it has no keys.
  const bool keys = legend->itemCount() > 0;
  legend->setVisible(keys);
  if (!keys && plotLayout()->hasElement(1, 0)) {
    plotLayout()->take(legend);
    plotLayout()->simplify();
  } else if (keys && !plotLayout()->hasElement(1, 0)) {
    plotLayout()->addElement(1, 0, legend);
    plotLayout()->setRowStretchFactor(1, 0.001);
  }
  fitLegend();
  applyTheme(*this, theme());
}

void AblationChart::useChainAxis() {
  auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
  for (int position = 0; position < kChainLength; ++position) {
    ticker->addTick(position, shortChainLabel(position));
  }
  xAxis->setTicker(ticker);
  chainLabelsWrapped_ = false;
  xAxis->setSubTicks(false);
  xAxis->setTickLength(0, 4);
  xAxis->grid()->setVisible(false);
  xAxis->setRange(-0.55, kChainLength - 0.45);
}

void AblationChart::fitChainLabels() {
  // Four categories share the axis. Where "+CompilerOpt" is wider than its
  // share (each chart is a quarter of a 1280 px window), the step names
  // take two lines instead of printing over their neighbours.
  const auto ticker = xAxis->ticker().dynamicCast<QCPAxisTickerText>();
  if (!ticker) return;
  const QFontMetrics metrics(xAxis->tickLabelFont());
  const double share = axisRect()->width() / xAxis->range().size();  // pixels per category
  bool wrap = false;
  for (int position = 0; position < kChainLength; ++position) {
    wrap = wrap || metrics.horizontalAdvance(shortChainLabel(position)) > 0.92 * share;
  }
  if (wrap == chainLabelsWrapped_) return;
  chainLabelsWrapped_ = wrap;
  for (int position = 0; position < kChainLength; ++position) {
    QString label = shortChainLabel(position);
    if (wrap) label.replace(QStringLiteral("Opt"), QStringLiteral("\nOpt"));
    ticker->addTick(position, label);  // replaces the label at that position
  }
  replot(rpQueuedReplot);
}

bool AblationChart::chainLabelsWrapped() const { return chainLabelsWrapped_; }

void AblationChart::showMessage(const QString& text) {
  addPlotMessage(*this, text, theme().foreground);
}

const AblationBar* AblationChart::barAt(const QVector<AblationBar>& bars,
                                        const QPointF& position) const {
  // Plottables are the plot's children; QCustomPlot::plottable() is not const.
  for (const QCPBars* plotted : findChildren<QCPBars*>(Qt::FindDirectChildrenOnly)) {
    QVariant details;
    if (plotted->selectTest(position, false, &details) < 0.0) continue;
    const QCPDataSelection hit = details.value<QCPDataSelection>();
    if (hit.isEmpty()) continue;
    // Keys are the chain position plus an offset of less than half a unit.
    const int chain = qRound(plotted->data()->at(hit.dataRange().begin())->key);
    for (const AblationBar& bar : bars) {
      if (bar.series == plotted->name() && bar.chainIndex == chain) return &bar;
    }
  }
  return nullptr;
}

}  // namespace tb::plotting
