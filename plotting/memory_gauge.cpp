// Values are shown in MiB: the engine's runs on the CPU range from a few MiB
// (tiny) to a few GiB, where bytes would make unreadable tick labels.
#include "plotting/memory_gauge.h"

#include <QEvent>
#include <QSharedPointer>
#include <QVBoxLayout>

#include <algorithm>

#include "plotting/chart_theme.h"
#include "plotting/plot_message.h"
#include "plotting/qcustomplot_include.h"
#include "tb/common/units.hpp"

namespace tb::plotting {
namespace {


double mib(std::uint64_t bytes) { return static_cast<double>(bytes) / kMiB; }

}  // namespace

MemoryGauge::MemoryGauge(QWidget* parent)
    : QWidget(parent),
      plot_(new QCustomPlot(this)),
      bars_(new QCPBars(plot_->yAxis, plot_->xAxis)),
      budgetLine_(new QCPItemStraightLine(plot_)),
      emptyMessage_(addPlotMessage(*plot_, tr("Memory in use appears once a run starts"), QColor())) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  plot_->setMinimumHeight(90);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  ticker->addTick(1, tr("live"));
  ticker->addTick(2, tr("peak"));
  plot_->yAxis->setTicker(ticker);
  plot_->yAxis->setRange(0.4, 2.6);
  plot_->xAxis->setLabel(tr("MiB"));
  bars_->setWidth(0.6);
  budgetLine_->setVisible(false);
  restyle();
  redraw();
}

void MemoryGauge::setBudget(std::uint64_t bytes) {
  budget_ = bytes;
  redraw();
}

void MemoryGauge::setUsage(std::uint64_t liveBytes, std::uint64_t peakBytes) {
  live_ = liveBytes;
  peak_ = std::max(peakBytes, liveBytes);
  redraw();
}

void MemoryGauge::clear() {
  live_ = 0;
  peak_ = 0;
  redraw();
}

void MemoryGauge::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) restyle();
}

void MemoryGauge::restyle() {
  const ChartTheme theme = themeForPalette(palette());
  applyTheme(*plot_, theme);
  const QColor bar = seriesColor(theme, 0);
  bars_->setPen(QPen(bar));
  bars_->setBrush(bar.lighter(theme.dark ? 90 : 130));
  budgetLine_->setPen(QPen(seriesColor(theme, 5), 2, Qt::DashLine));
  emptyMessage_->setColor(theme.foreground);
}

bool MemoryGauge::showsEmptyMessage() const { return emptyMessage_->visible(); }

void MemoryGauge::redraw() {
  bars_->setData({1.0, 2.0}, {mib(live_), mib(peak_)}, true);
  const bool hasBudget = budget_ > 0;
  budgetLine_->setVisible(hasBudget);
  if (hasBudget) {
    budgetLine_->point1->setCoords(mib(budget_), 0.0);
    budgetLine_->point2->setCoords(mib(budget_), 3.0);
  }
  const double top = std::max({mib(peak_), hasBudget ? mib(budget_) : 0.0, 1.0});
  plot_->xAxis->setRange(0.0, top * 1.08);
  const bool empty = live_ == 0 && peak_ == 0;
  emptyMessage_->setVisible(empty);
  plot_->xAxis->setTickLabels(!empty || hasBudget);  // a budget alone has a scale to show
  plot_->xAxis->setTicks(!empty || hasBudget);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace tb::plotting
