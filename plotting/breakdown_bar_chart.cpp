// Bytes are plotted in GiB because that is how nvidia-smi and the cards'
// data sheets are read. The chart is rebuilt on every change (at most eight
// bars), which keeps theming and data in one code path.
#include "plotting/breakdown_bar_chart.h"

#include <QEvent>
#include <QMouseEvent>

#include <algorithm>
#include <cmath>

#include "plotting/chart_context_menu.h"
#include "tb/common/units.hpp"

namespace tb::plotting {
namespace {

constexpr double kBarKey = 1.0;

QString gib(double bytes) { return QString::number(bytes / kGiB, 'f', 1) + QStringLiteral(" GiB"); }

/// Legend entries a row at most, and the narrowest the chart asks to be (one
/// legend column of the longest term name fits in it).
constexpr int kLegendColumns = 3;
constexpr int kNarrowestWidth = 300;

}  // namespace

QColor breakdownTermColor(const ChartTheme& theme, int index, const BreakdownTerm& term) {
  if (!term.cache) return seriesColor(theme, index);
  QColor neutral = theme.foreground;
  neutral.setAlphaF(0.55F);
  return neutral;
}

BreakdownBarChart::BreakdownBarChart(QWidget* parent) : ThemedChart(parent) {
  setObjectName(QStringLiteral("breakdownBarChart"));
  setMouseTracking(true);
  setMinimumHeight(150);
  // The legend goes in a row of its own below the bar, where it hides nothing:
  // three entries a row where they fit, fewer where the chart is narrower
  // (fitLegend). Four ("Framework and allocator" among them) pushed the
  // Memory page past the default window.
  axisRect()->insetLayout()->take(legend);
  plotLayout()->addElement(1, 0, legend);
  legend->setVisible(true);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(kLegendColumns);
  setLegendColumnLimit(kLegendColumns);
  plotLayout()->setRowStretchFactor(1, 0.001);
  installExportMenu(*this, QStringLiteral("memory-breakdown"));
  rebuild();
}

void BreakdownBarChart::setBreakdown(const QVector<BreakdownTerm>& terms, double capacityBytes,
                                     const QString& capacityLabel) {
  terms_ = terms;
  capacity_ = capacityBytes;
  capacityLabel_ = capacityLabel;
  rebuild();
}

QStringList BreakdownBarChart::segmentNames() const {
  QStringList names;
  for (const QCPBars* bar : bars_) names.append(bar->name());
  return names;
}

void BreakdownBarChart::rebuild() {
  clearPlottables();
  clearItems();
  bars_.clear();
  total_ = 0.0;
  yAxis->setTicks(false);
  yAxis->setRange(0.4, 1.6);
  xAxis->setLabel(tr("GiB per GPU at the peak"));

  QCPBars* below = nullptr;
  int colorIndex = 0;
  for (const BreakdownTerm& term : terms_) {
    const int index = colorIndex++;
    if (term.bytes <= 0.0) continue;
    auto* bar = new QCPBars(yAxis, xAxis);
    bar->setName(term.name);
    bar->setWidth(0.6);
    const QColor color = breakdownTermColor(theme(), index, term);
    bar->setBrush(term.cache ? QBrush(color, Qt::BDiagPattern) : QBrush(color));
    bar->setPen(QPen(theme().background, 1));
    bar->addData(kBarKey, term.bytes / kGiB);
    if (below != nullptr) bar->moveAbove(below);
    below = bar;
    bars_.append(bar);
    total_ += term.bytes;
  }

  const double extent = std::max(total_, capacity_) / kGiB;
  xAxis->setRange(0.0, extent > 0.0 ? extent * 1.1 : 1.0);
  if (capacity_ > 0.0) {
    const QColor lineColor = theme().dark ? QColor(0xFF, 0x80, 0x80) : QColor(0xC0, 0x1C, 0x28);
    auto* line = new QCPItemStraightLine(this);
    line->setPen(QPen(lineColor, 2, Qt::DashLine));
    line->point1->setCoords(capacity_ / kGiB, 0.0);
    line->point2->setCoords(capacity_ / kGiB, 2.0);
    auto* label = new QCPItemText(this);
    label->setColor(lineColor);
    label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    label->position->setCoords(capacity_ / kGiB, 1.6);
    label->setPadding(QMargins(0, 2, 4, 0));
    label->setText(capacityLabel_.isEmpty() ? gib(capacity_) : capacityLabel_);
  }
  fitLegend();
  applyTheme(*this, theme());
}

QSize BreakdownBarChart::minimumSizeHint() const {
  QSize hint = ThemedChart::minimumSizeHint();
  hint.setWidth(std::min(hint.width(), kNarrowestWidth));
  return hint;
}

QString BreakdownBarChart::toolTipAt(const QPointF& position) const {
  const double value = xAxis->pixelToCoord(position.x());
  const double key = yAxis->pixelToCoord(position.y());
  if (std::abs(key - kBarKey) > 0.3) return {};
  double start = 0.0;
  for (const QCPBars* bar : bars_) {
    const double size = bar->data()->begin()->value;
    if (value >= start && value < start + size) {
      const double share = total_ > 0.0 ? 100.0 * size * kGiB / total_ : 0.0;
      return tr("%1: %2 (%3 % of %4)")
          .arg(bar->name(), gib(size * kGiB), QString::number(share, 'f', 1), gib(total_));
    }
    start += size;
  }
  return {};
}

}  // namespace tb::plotting
