// Normalised bars divide each series by its own Base, so an 8-GPU cluster
// chain and a CPU engine chain share one axis honestly; a series without a
// Base cannot be normalised and is left out (its absolute numbers remain one
// toggle away). In absolute mode a second unit gets the right-hand axis
// rather than being drawn against tokens/s.
#include "plotting/ablation_charts.h"

#include <QStringList>

#include <algorithm>
#include <array>
#include <cmath>

#include "plotting/ablation_series.h"

namespace tb::plotting {
namespace {

QString speedupText(double speedup) { return QString::number(speedup, 'f', 2) + QChar(0x00D7); }

}  // namespace

AblationThroughputChart::AblationThroughputChart(QWidget* parent)
    : AblationChart(QStringLiteral("ablation-throughput"), parent) {
  setObjectName(QStringLiteral("ablationThroughputChart"));
  rebuild();
}

void AblationThroughputChart::setNormalised(bool normalised) {
  if (normalised == normalised_) return;
  normalised_ = normalised;
  rebuild();
  Q_EMIT normalisedChanged(normalised_);
}

void AblationThroughputChart::forget() { bars_.clear(); }

void AblationThroughputChart::drawResults() {
  useChainAxis();
  std::vector<AblationSeries> all = groupIntoSeries(results());
  if (normalised_) {
    std::erase_if(all, [](const AblationSeries& series) {
      return series.base() == nullptr || series.base()->throughput.median <= 0.0;
    });
  }
  if (all.empty()) {
    showMessage(tr("No configuration has a Base to normalise against"));
    return;
  }
  QStringList units;
  for (const AblationSeries& series : all) {
    if (!units.contains(series.unit)) units.append(series.unit);
  }
  const auto count = static_cast<int>(all.size());
  QStringList names;
  std::array<double, 2> top = {0.0, 0.0};  // left and right axis
  for (int index = 0; index < count; ++index) {
    const AblationSeries& series = all.at(static_cast<std::size_t>(index));
    const bool right = !normalised_ && units.indexOf(series.unit) > 0;
    QCPAxis* valueAxis = right ? yAxis2 : yAxis;
    const double baseMedian = series.base() != nullptr ? series.base()->throughput.median : 0.0;
    const double scale = normalised_ ? 1.0 / baseMedian : 1.0;

    auto* bars = new QCPBars(xAxis, valueAxis);
    bars->setName(series.name);
    bars->setWidth(seriesWidth(count) * 0.92);
    const QColor color = seriesColor(theme(), index);
    bars->setBrush(color);
    bars->setPen(QPen(color.darker(120), 1));
    auto* errors = new QCPErrorBars(xAxis, valueAxis);
    errors->removeFromLegend();
    errors->setPen(QPen(theme().foreground, 1.2));
    errors->setWhiskerWidth(std::max(4.0, 40.0 / count));
    errors->setDataPlottable(bars);
    QVector<double> minus;
    QVector<double> plus;
    for (int position = 0; position < kChainLength; ++position) {
      const tb::bench::ConfigurationResult* config =
          series.steps.at(static_cast<std::size_t>(position));
      if (config == nullptr) continue;
      AblationBar bar;
      bar.series = series.name;
      bar.label = QString::fromStdString(config->label);
      bar.chainIndex = position;
      bar.value = config->throughput.median * scale;
      // A summary without a spread (one imported number) has min = max = 0.
      const bool spread =
          config->throughput.max >= config->throughput.min && config->throughput.max > 0.0;
      bar.low = spread ? config->throughput.min * scale : bar.value;
      bar.high = spread ? config->throughput.max * scale : bar.value;
      bar.speedup = baseMedian > 0.0 ? config->throughput.median / baseMedian : 0.0;
      const double key = seriesKey(position, index, count);
      bars->addData(key, bar.value);
      minus.append(std::max(0.0, bar.value - bar.low));
      plus.append(std::max(0.0, bar.high - bar.value));
      double& axisTop = top.at(right ? 1 : 0);
      axisTop = std::max(axisTop, bar.high);
      bars_.append(bar);
      // Normalised, every Base is 1.00x by definition (the dashed line says
      // so): their labels would only crowd each other over the narrow bars.
      if (normalised_ && position == 0) continue;

      auto* text = new QCPItemText(this);
      text->setClipToAxisRect(false);
      text->position->setAxes(xAxis, valueAxis);
      text->position->setCoords(key, bar.high);
      text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
      text->setPadding(QMargins(0, 0, 0, 3));
      QFont font = this->font();
      font.setPointSizeF(font.pointSizeF() * (count > 2 ? 0.8 : 0.9));
      font.setBold(true);
      text->setFont(font);
      text->setColor(theme().foreground);
      text->setText(bar.speedup > 0.0 ? speedupText(bar.speedup)
                                      : formatThroughput(bar.value, series.unit));
    }
    errors->setData(minus, plus);
    names.append(series.name);
  }
  setSeriesNames(names);

  // Headroom above the tallest error bar keeps the speedup text inside.
  yAxis->setRange(0.0, (top.at(0) > 0.0 ? top.at(0) : 1.0) * 1.18);
  if (normalised_) {
    yAxis->setLabel(tr("Relative to Base (\u00d7)"));  // short: the chart's title says throughput
    auto* line = new QCPItemStraightLine(this);
    line->setPen(QPen(theme().foreground, 1, Qt::DashLine));
    line->point1->setCoords(-1.0, 1.0);
    line->point2->setCoords(kChainLength, 1.0);
  } else {
    yAxis->setLabel(tr("Throughput (%1)").arg(units.first()));
    if (units.size() > 1) {
      yAxis2->setVisible(true);
      yAxis2->setRange(0.0, (top.at(1) > 0.0 ? top.at(1) : 1.0) * 1.18);
      yAxis2->setLabel(tr("Throughput (%1)").arg(units.mid(1).join(QStringLiteral(", "))));
    }
  }
}

QString AblationThroughputChart::toolTipAt(const QPointF& position) const {
  const AblationBar* bar = barAt(bars_, position);
  if (bar == nullptr) return {};
  const tb::bench::ConfigurationResult* config = nullptr;
  for (const AblationSeries& series : groupIntoSeries(results())) {
    if (series.name != bar->series) continue;
    config = series.steps.at(static_cast<std::size_t>(bar->chainIndex));
  }
  if (config == nullptr) return {};
  const QString unit = QString::fromStdString(config->throughputUnit);
  QString text =
      tr("%1 (%2)\nmedian %3 (min %4, max %5; %6 runs)")
          .arg(bar->label, bar->series, formatThroughput(config->throughput.median, unit),
               formatThroughput(config->throughput.min, unit),
               formatThroughput(config->throughput.max, unit))
          .arg(config->throughput.count);
  if (bar->speedup > 0.0) text += tr("\n%1 over Base").arg(speedupText(bar->speedup));
  return text;
}

}  // namespace tb::plotting
