// Peak memory is plotted in GiB, per GPU for cluster runs (what the cluster
// schema records), beside the engine's memory budget: the point of CkptOpt is
// to spend the memory under that line on recomputing less, so the line is
// what makes its taller bar read as intended rather than as a regression.
#include "plotting/ablation_charts.h"

#include <algorithm>

#include "plotting/ablation_series.h"

namespace tb::plotting {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

QString gib(double value) {
  return QString::number(value, 'f', value >= 10.0 ? 1 : 2) + QStringLiteral(" GiB");
}

}  // namespace

PeakMemoryChart::PeakMemoryChart(QWidget* parent)
    : AblationChart(QStringLiteral("ablation-peak-memory"), parent) {
  setObjectName(QStringLiteral("peakMemoryChart"));
  rebuild();
}

void PeakMemoryChart::forget() { bars_.clear(); }

void PeakMemoryChart::draw() {
  useChainAxis();
  std::vector<AblationSeries> all = groupIntoSeries(results());
  std::erase_if(all, [](const AblationSeries& series) {
    return std::none_of(series.steps.begin(), series.steps.end(), [](const auto* config) {
      return config != nullptr && config->peakBytes > 0;
    });
  });
  if (all.empty()) {
    showMessage(tr("These results record no peak memory"));
    return;
  }
  const auto count = static_cast<int>(all.size());
  const double budget = static_cast<double>(results().memoryBudgetBytes) / kGiB;
  double top = budget;
  QStringList names;
  for (int index = 0; index < count; ++index) {
    const AblationSeries& series = all.at(static_cast<std::size_t>(index));
    auto* bars = new QCPBars(xAxis, yAxis);
    bars->setName(series.name);
    bars->setWidth(seriesWidth(count) * 0.92);
    const QColor color = seriesColor(theme(), index);
    bars->setBrush(color);
    bars->setPen(QPen(color.darker(120), 1));
    for (int position = 0; position < kChainLength; ++position) {
      const auto* config = series.steps.at(static_cast<std::size_t>(position));
      if (config == nullptr || config->peakBytes == 0) continue;
      AblationBar bar;
      bar.series = series.name;
      bar.label = QString::fromStdString(config->label);
      bar.chainIndex = position;
      bar.value = static_cast<double>(config->peakBytes) / kGiB;
      bar.low = bar.value;
      bar.high = bar.value;
      const double key = seriesKey(position, index, count);
      bars->addData(key, bar.value);
      top = std::max(top, bar.value);

      auto* text = new QCPItemText(this);
      text->setClipToAxisRect(false);
      text->position->setCoords(key, bar.value);
      text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
      text->setPadding(QMargins(0, 0, 0, 2));
      QFont font = this->font();
      font.setPointSizeF(font.pointSizeF() * (count > 2 ? 0.75 : 0.85));
      text->setFont(font);
      text->setColor(theme().foreground);
      text->setText(gib(bar.value));
      bars_.append(bar);
    }
    names.append(series.name);
  }
  setSeriesNames(names);
  yAxis->setRange(0.0, (top > 0.0 ? top : 1.0) * 1.15);
  yAxis->setLabel(tr("Peak memory (GiB; per GPU for cluster runs)"));
  if (budget > 0.0) {
    const QColor lineColor = theme().dark ? QColor(0xFF, 0x80, 0x80) : QColor(0xC0, 0x1C, 0x28);
    auto* line = new QCPItemStraightLine(this);
    line->setPen(QPen(lineColor, 1.5, Qt::DashLine));
    line->point1->setCoords(-1.0, budget);
    line->point2->setCoords(kChainLength, budget);
    auto* label = new QCPItemText(this);
    label->setColor(lineColor);
    label->position->setType(QCPItemPosition::ptAxisRectRatio);
    label->position->setTypeY(QCPItemPosition::ptPlotCoords);
    label->position->setCoords(0.0, budget);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    label->setPadding(QMargins(4, 0, 0, 2));
    label->setText(tr("engine memory budget %1").arg(gib(budget)));
  }
}

QString PeakMemoryChart::toolTipAt(const QPointF& position) const {
  const AblationBar* bar = barAt(bars_, position);
  if (bar == nullptr) return {};
  return tr("%1 (%2)\npeak memory %3").arg(bar->label, bar->series, gib(bar->value));
}

}  // namespace tb::plotting
