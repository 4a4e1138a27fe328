// The two curves share the K axis but not a unit, so the step time gets the
// right-hand axis in its own colour. Levels (budget, usable budget, selective)
// are straight lines with a label at the right end, where the curve is lowest
// and they collide least with it.
#include "plotting/tradeoff_chart.h"

#include <QEvent>
#include <QMouseEvent>

#include <algorithm>
#include <cmath>

#include "plotting/chart_context_menu.h"
#include "tb/common/units.hpp"

namespace tb::plotting {
namespace {

constexpr double kHoverPixels = 24.0;
/// Two levels closer than this share of the peak axis have labels that would
/// overprint (a label is about 5 % of a 300 px axis high).
constexpr double kCrowdedLevels = 0.06;

QString gib(double bytes) { return QString::number(bytes / kGiB, 'f', 1) + QStringLiteral(" GiB"); }

QString percent(double ratio) {
  const double value = 100.0 * (ratio - 1.0);
  return (value >= 0.0 ? QStringLiteral("+") : QString()) + QString::number(value, 'f', 1) +
         QStringLiteral(" %");
}

}  // namespace

TradeoffChart::TradeoffChart(QWidget* parent) : ThemedChart(parent) {
  setObjectName(QStringLiteral("tradeoffChart"));
  setMouseTracking(true);
  setMinimumHeight(220);
  yAxis2->setVisible(true);
  // The legend gets a row below the axes: inside, the two crossing curves
  // leave no corner free for every model.
  axisRect()->insetLayout()->take(legend);
  plotLayout()->addElement(1, 0, legend);
  plotLayout()->setRowStretchFactor(1, 0.001);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(4);
  legend->setVisible(true);
  installExportMenu(*this, QStringLiteral("recompute-tradeoff"));
  rebuild();
}

void TradeoffChart::setData(const TradeoffData& data) {
  data_ = data;
  rebuild();
}

int TradeoffChart::pointCount() const { return peak_ != nullptr ? peak_->dataCount() : 0; }

std::optional<int> TradeoffChart::markedK() const {
  if (marker_ == nullptr || marker_->dataCount() == 0) return std::nullopt;
  return static_cast<int>(std::lround(marker_->data()->begin()->key));
}

void TradeoffChart::addLevel(double bytes, const QPen& pen, const QString& text, LabelAt at) {
  auto* line = new QCPItemStraightLine(this);
  line->setPen(pen);
  line->point1->setCoords(0.0, bytes / kGiB);
  line->point2->setCoords(1.0, bytes / kGiB);
  auto* label = new QCPItemText(this);
  label->setColor(pen.color());
  label->position->setAxisRect(axisRect());
  label->position->setAxes(xAxis, yAxis);
  label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  label->position->setTypeY(QCPItemPosition::ptPlotCoords);
  const bool left = at == LabelAt::LeftBelow;
  label->position->setCoords(left ? 0.01 : 0.99, bytes / kGiB);
  label->setPositionAlignment((left ? Qt::AlignLeft : Qt::AlignRight) |
                              (at == LabelAt::RightAbove ? Qt::AlignBottom : Qt::AlignTop));
  label->setTextAlignment(left ? Qt::AlignLeft : Qt::AlignRight);
  label->setText(text);
}

void TradeoffChart::rebuild() {
  clearPlottables();
  clearItems();
  peak_ = time_ = marker_ = nullptr;
  xAxis->setLabel(tr("Layers fully recomputed (K)"));
  yAxis->setLabel(tr("Predicted peak (GiB)"));
  yAxis2->setLabel(tr("Step time vs. no recompute"));

  const QColor peakColor = seriesColor(theme(), 0);
  const QColor timeColor = seriesColor(theme(), 1);
  const QColor budgetColor = theme().dark ? QColor(0xFF, 0x80, 0x80) : QColor(0xC0, 0x1C, 0x28);
  const QColor markColor = seriesColor(theme(), 2);

  QVector<double> keys;
  QVector<double> peaks;
  QVector<double> times;
  for (const TradeoffPoint& point : data_.curve) {
    keys.append(point.k);
    peaks.append(point.peakBytes / kGiB);
    times.append(point.timeRatio);
  }
  peak_ = addGraph(xAxis, yAxis);
  peak_->setName(tr("Peak memory"));
  peak_->setPen(QPen(peakColor, 2));
  peak_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, peakColor, 5));
  peak_->setData(keys, peaks, true);
  time_ = addGraph(xAxis, yAxis2);
  time_->setName(tr("Step time"));
  time_->setPen(QPen(timeColor, 2, Qt::DashLine));
  time_->setData(keys, times, true);

  double low = peaks.isEmpty() ? 0.0 : *std::min_element(peaks.cbegin(), peaks.cend());
  double high = peaks.isEmpty() ? 1.0 : *std::max_element(peaks.cbegin(), peaks.cend());
  double slowest = times.isEmpty() ? 1.0 : *std::max_element(times.cbegin(), times.cend());
  if (data_.budgetBytes > 0.0) {
    addLevel(data_.budgetBytes, QPen(budgetColor, 2), tr("budget %1").arg(gib(data_.budgetBytes)),
             LabelAt::RightAbove);
    low = std::min(low, data_.budgetBytes / kGiB);
    high = std::max(high, data_.budgetBytes / kGiB);
  }
  if (data_.usableBytes > 0.0 && data_.usableBytes < data_.budgetBytes) {
    // Above its line like the budget's, unless the two lines are a few
    // pixels apart (a curve spanning far more than the card): then below it,
    // where the two labels cannot overprint.
    const double gap = (data_.budgetBytes - data_.usableBytes) / kGiB;
    const bool crowded = gap < kCrowdedLevels * std::max(high - low, gap);
    addLevel(data_.usableBytes, QPen(budgetColor, 1, Qt::DotLine),
             tr("less margin %1").arg(gib(data_.usableBytes)),
             crowded ? LabelAt::RightBelow : LabelAt::RightAbove);
    low = std::min(low, data_.usableBytes / kGiB);
  }
  if (data_.selective) {
    // Left and below the line, on two lines: the budget's labels sit at the
    // right above theirs, and a planner's choice often lands on the margin.
    const QString text =
        tr("%1\n%2, %3%4")
            .arg(data_.selectiveName, gib(data_.selective->peakBytes),
                 percent(data_.selective->timeRatio),
                 data_.selectiveRecommended ? tr(" \u2014 recommended") : QString());
    addLevel(data_.selective->peakBytes,
             QPen(data_.selectiveRecommended ? markColor : theme().foreground,
                  data_.selectiveRecommended ? 2 : 1, Qt::DashDotLine),
             text, LabelAt::LeftBelow);
    low = std::min(low, data_.selective->peakBytes / kGiB);
    high = std::max(high, data_.selective->peakBytes / kGiB);
    slowest = std::max(slowest, data_.selective->timeRatio);
  }

  if (data_.recommendedK) {
    const int chosen = *data_.recommendedK;
    const auto found = std::find_if(data_.curve.cbegin(), data_.curve.cend(),
                                    [chosen](const TradeoffPoint& p) { return p.k == chosen; });
    if (found != data_.curve.cend()) {
      marker_ = addGraph(xAxis, yAxis);
      marker_->setName(tr("Recommended"));
      marker_->setLineStyle(QCPGraph::lsNone);
      marker_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, markColor, 13));
      marker_->addData(found->k, found->peakBytes / kGiB);
      auto* label = new QCPItemText(this);
      label->setColor(markColor);
      label->position->setCoords(found->k, found->peakBytes / kGiB);
      // Below and left of the point: the curve falls to the right, so that
      // corner is free of it whatever the model.
      label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
      label->setPadding(QMargins(0, 10, 10, 0));
      label->setText(tr("recommended K = %1\n%2, step time %3")
                         .arg(found->k)
                         .arg(gib(found->peakBytes), percent(found->timeRatio)));
    }
  }

  const double last = data_.curve.isEmpty() ? 1.0 : data_.curve.last().k;
  xAxis->setRange(-0.5, last + 0.5);
  const double pad = std::max(0.5, (high - low) * 0.12);
  yAxis->setRange(std::max(0.0, low - pad), high + pad);
  yAxis2->setRange(1.0 - (slowest - 1.0) * 0.08 - 0.005, slowest + (slowest - 1.0) * 0.25 + 0.01);
  applyTheme(*this, theme());
  yAxis2->setLabelColor(timeColor);
  yAxis2->setTickLabelColor(timeColor);
  replot(QCustomPlot::rpQueuedReplot);
}

QString TradeoffChart::toolTipAt(const QPointF& position) const {
  if (data_.curve.isEmpty()) return {};
  const double key = xAxis->pixelToCoord(position.x());
  const auto closer = [key](const TradeoffPoint& a, const TradeoffPoint& b) {
    return std::abs(a.k - key) < std::abs(b.k - key);
  };
  const auto nearest = std::min_element(data_.curve.cbegin(), data_.curve.cend(), closer);
  if (std::abs(xAxis->coordToPixel(nearest->k) - position.x()) > kHoverPixels) return {};
  const double usable = data_.usableBytes > 0.0 ? data_.usableBytes : data_.budgetBytes;
  QString text = tr("K = %1 of %2: peak %3, step time %4")
                     .arg(nearest->k)
                     .arg(data_.curve.last().k)
                     .arg(gib(nearest->peakBytes), percent(nearest->timeRatio));
  if (usable > 0.0) {
    text += nearest->peakBytes <= usable ? tr(" \u2014 fits") : tr(" \u2014 does not fit");
  }
  return text;
}

}  // namespace tb::plotting
