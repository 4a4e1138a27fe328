// Quartiles use linear interpolation between order statistics (type 7, the
// numpy and R default), so the boxes agree with what a user computes from
// results.json. Every step is also drawn as a dot, spread across the box's
// width in measurement order: with a few dozen steps per configuration the
// dots show bimodal or drifting runs that five numbers hide.
#include "plotting/ablation_charts.h"

#include <algorithm>
#include <cmath>

#include "plotting/ablation_series.h"

namespace tb::plotting {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted.at(below) + (sorted.at(above) - sorted.at(below)) * fraction;
}

/// The box of one configuration, or a box with samples = -1 when it has no step times.
StepTimeBox boxOf(const tb::bench::ConfigurationResult& config) {
  StepTimeBox box;
  box.label = QString::fromStdString(config.label);
  std::vector<double> times;
  for (double time : config.stepTimes) {
    if (std::isfinite(time) && time > 0.0) times.push_back(time);
  }
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    box.minimum = times.front();
    box.lowerQuartile = quantile(times, 0.25);
    box.median = quantile(times, 0.5);
    box.upperQuartile = quantile(times, 0.75);
    box.maximum = times.back();
    box.samples = static_cast<int>(times.size());
  } else if (config.stepTimeS.count > 0 && config.stepTimeS.median > 0.0) {
    // Only a summary (a cluster import): the box spans min to max around the median.
    box.minimum = config.stepTimeS.min;
    box.lowerQuartile = config.stepTimeS.min;
    box.median = config.stepTimeS.median;
    box.upperQuartile = config.stepTimeS.max;
    box.maximum = config.stepTimeS.max;
    box.samples = 0;
  } else {
    box.samples = -1;
  }
  return box;
}

QString seconds(double value) {
  return value >= 1.0 ? QString::number(value, 'f', 3) + QStringLiteral(" s")
                      : QString::number(value * 1000.0, 'f', 1) + QStringLiteral(" ms");
}

}  // namespace

StepTimeChart::StepTimeChart(QWidget* parent)
    : AblationChart(QStringLiteral("ablation-step-times"), parent) {
  setObjectName(QStringLiteral("stepTimeChart"));
  rebuild();
}

void StepTimeChart::forget() { boxes_.clear(); }

void StepTimeChart::drawResults() {
  useChainAxis();
  std::vector<AblationSeries> all = groupIntoSeries(results());
  std::erase_if(all, [](const AblationSeries& series) {
    return std::none_of(series.steps.begin(), series.steps.end(), [](const auto* config) {
      return config != nullptr && boxOf(*config).samples >= 0;
    });
  });
  if (all.empty()) {
    showMessage(tr("These results record no step times"));
    return;
  }
  const auto count = static_cast<int>(all.size());
  const double width = seriesWidth(count) * 0.8;
  double top = 0.0;
  QStringList names;
  for (int index = 0; index < count; ++index) {
    const AblationSeries& series = all.at(static_cast<std::size_t>(index));
    const QColor color = seriesColor(theme(), index);
    auto* boxes = new QCPStatisticalBox(xAxis, yAxis);
    boxes->setName(series.name);
    boxes->setWidth(width);
    boxes->setWhiskerWidth(width * 0.5);
    QColor fill = color;
    fill.setAlpha(70);
    boxes->setBrush(fill);
    boxes->setPen(QPen(color, 1.4));
    boxes->setWhiskerPen(QPen(color, 1.2));
    boxes->setWhiskerBarPen(QPen(color, 1.2));
    boxes->setMedianPen(QPen(theme().foreground, 2));
    auto* dots = new QCPGraph(xAxis, yAxis);
    dots->removeFromLegend();
    dots->setLineStyle(QCPGraph::lsNone);
    QColor dotColor = theme().foreground;
    dotColor.setAlpha(150);
    dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, dotColor, 3.5));
    for (int position = 0; position < kChainLength; ++position) {
      const auto* config = series.steps.at(static_cast<std::size_t>(position));
      if (config == nullptr) continue;
      StepTimeBox box = boxOf(*config);
      if (box.samples < 0) continue;
      box.series = series.name;
      box.chainIndex = position;
      const double key = seriesKey(position, index, count);
      boxes->addData(key, box.minimum, box.lowerQuartile, box.median, box.upperQuartile,
                     box.maximum);
      top = std::max(top, box.maximum);
      const auto samples = static_cast<double>(config->stepTimes.size());
      for (std::size_t step = 0; step < config->stepTimes.size(); ++step) {
        const double spread = samples > 1.0 ? static_cast<double>(step) / (samples - 1.0) : 0.5;
        dots->addData(key - width * 0.35 + width * 0.7 * spread, config->stepTimes.at(step));
        top = std::max(top, config->stepTimes.at(step));
      }
      boxes_.append(box);
    }
    names.append(series.name);
  }
  setSeriesNames(names);
  yAxis->setRange(0.0, (top > 0.0 ? top : 1.0) * 1.1);
  yAxis->setLabel(tr("Step time (s)"));
}

QString StepTimeChart::toolTipAt(const QPointF& position) const {
  const double key = xAxis->pixelToCoord(position.x());
  const double value = yAxis->pixelToCoord(position.y());
  const auto count = static_cast<int>(seriesNames().size());
  const double half = seriesWidth(count) * 0.4;
  for (const StepTimeBox& box : boxes_) {
    const auto seriesIndex = static_cast<int>(seriesNames().indexOf(box.series));
    const double centre = seriesKey(box.chainIndex, seriesIndex, count);
    if (std::abs(key - centre) > half) continue;
    const double slack = (box.maximum - box.minimum) * 0.05;
    if (value < box.minimum - slack || value > box.maximum + slack) continue;
    const QString spread = box.samples > 0 ? tr("%1 steps").arg(box.samples) : tr("summary only");
    return tr("%1 (%2), %3\nmedian %4, quartiles %5 – %6\nmin %7, max %8")
        .arg(box.label, box.series, spread, seconds(box.median), seconds(box.lowerQuartile),
             seconds(box.upperQuartile), seconds(box.minimum), seconds(box.maximum));
  }
  return {};
}

}  // namespace tb::plotting
