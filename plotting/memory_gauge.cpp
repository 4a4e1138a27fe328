// Values are shown in MiB: the engine's runs on the CPU range from a few MiB
// (tiny) to a few GiB, where bytes would make unreadable tick labels.
#include "plotting/memory_gauge.h"

#include <QEvent>
#include <QSharedPointer>
#include <QVector>
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
      peakBars_(new QCPBars(plot_->yAxis, plot_->xAxis)),
      bars_(new QCPBars(plot_->yAxis, plot_->xAxis)),
      budgetLine_(new QCPItemStraightLine(plot_)),
      emptyMessage_(
          addPlotMessage(*plot_, tr("Memory in use appears once a run starts"), QColor())) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  plot_->setMinimumHeight(90);
  bars_->setWidth(0.6);
  peakBars_->setWidth(0.6);
  layoutRows(0);
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

void MemoryGauge::setRankUsage(int rank, std::uint64_t liveBytes, std::uint64_t peakBytes) {
  const std::size_t before = ranks_.size();
  ranks_[rank] = {liveBytes, std::max(peakBytes, liveBytes)};
  if (ranks_.size() != before) layoutRows(ranks_.size());
  redraw();
}

std::optional<MemoryGauge::Usage> MemoryGauge::rankUsage(int rank) const {
  const auto found = ranks_.find(rank);
  if (found == ranks_.end()) return std::nullopt;
  return found->second;
}

void MemoryGauge::clear() {
  live_ = 0;
  peak_ = 0;
  if (!ranks_.empty()) {
    ranks_.clear();
    layoutRows(0);
  }
  redraw();
}

void MemoryGauge::layoutRows(std::size_t ranks) {
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  if (ranks == 0) {
    ticker->addTick(1, tr("live"));
    ticker->addTick(2, tr("peak"));
    plot_->yAxis->setRange(0.4, 2.6);
    plot_->xAxis->setLabel(tr("MiB"));
    bars_->setWidth(0.6);
    setMaximumHeight(120);
  } else {
    // Rank 0 on top, as the ranks are listed everywhere else.
    double row = static_cast<double>(ranks);
    for (const auto& [rank, usage] : ranks_) {
      ticker->addTick(row, tr("rank %1").arg(rank));
      row -= 1.0;
    }
    plot_->yAxis->setRange(0.4, static_cast<double>(ranks) + 0.6);
    plot_->xAxis->setLabel(tr("MiB: live (dark) and peak (light) of each rank"));
    bars_->setWidth(0.35);
    // Enough height for every row's label at the default font.
    setMaximumHeight(std::max(120, 50 + 24 * static_cast<int>(ranks)));
  }
  plot_->yAxis->setTicker(ticker);
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
  QColor faint = bar;
  faint.setAlphaF(0.3F);
  peakBars_->setPen(QPen(bar));
  peakBars_->setBrush(faint);
  budgetLine_->setPen(QPen(seriesColor(theme, 5), 2, Qt::DashLine));
  emptyMessage_->setColor(theme.foreground);
}

bool MemoryGauge::showsEmptyMessage() const { return emptyMessage_->visible(); }

void MemoryGauge::redraw() {
  double top = 0.0;
  if (ranks_.empty()) {
    bars_->setData({1.0, 2.0}, {mib(live_), mib(peak_)}, true);
    peakBars_->data()->clear();
    top = mib(peak_);
  } else {
    QVector<double> rows;
    QVector<double> live;
    QVector<double> peak;
    double row = static_cast<double>(ranks_.size());
    for (const auto& [rank, usage] : ranks_) {
      rows.prepend(row);
      live.prepend(mib(usage.live));
      peak.prepend(mib(usage.peak));
      top = std::max(top, mib(usage.peak));
      row -= 1.0;
    }
    bars_->setData(rows, live, true);
    peakBars_->setData(rows, peak, true);
  }
  const double rowsTop = ranks_.empty() ? 3.0 : static_cast<double>(ranks_.size()) + 1.0;
  const bool hasBudget = budget_ > 0;
  budgetLine_->setVisible(hasBudget);
  if (hasBudget) {
    budgetLine_->point1->setCoords(mib(budget_), 0.0);
    budgetLine_->point2->setCoords(mib(budget_), rowsTop);
  }
  top = std::max({top, hasBudget ? mib(budget_) : 0.0, 1.0});
  plot_->xAxis->setRange(0.0, top * 1.08);
  const bool empty = live_ == 0 && peak_ == 0 && ranks_.empty();
  emptyMessage_->setVisible(empty);
  plot_->xAxis->setTickLabels(!empty || hasBudget);  // a budget alone has a scale to show
  plot_->xAxis->setTicks(!empty || hasBudget);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace tb::plotting
