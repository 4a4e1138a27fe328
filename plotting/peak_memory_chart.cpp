// Engine runs measure hundreds of MiB of CPU memory; cluster runs report tens
// of GiB per GPU. On one axis the engine bars would be slivers, so when both
// are present each gets its own axis (engine left, cluster right), each in
// the unit that suits its numbers. The engine's memory budget is drawn on the
// engine axis as a dashed line whose label lives in the legend, below the
// plot, where no bar can cover it: the point of CkptOpt is to spend memory
// under that line on recomputing less, so its taller bar reads as intended.
// Values are written on the bars while they are wide enough to hold them.
#include "plotting/ablation_charts.h"

#include <algorithm>

#include "plotting/ablation_series.h"
#include "tb/common/units.hpp"

namespace tb::plotting {
namespace {

// One value axis: where its bars go and the unit it counts in.
struct MemoryAxis {
  QCPAxis* axis = nullptr;
  double unitBytes = kGiB;
  QString unit = QStringLiteral("GiB");
  double topBytes = 0.0;
};

// MiB below a GiB, so a 300 MiB engine run reads "300", not "0.29".
void chooseUnit(MemoryAxis& axis) {
  const bool small = axis.topBytes < kGiB;
  axis.unitBytes = small ? kMiB : kGiB;
  axis.unit = small ? QStringLiteral("MiB") : QStringLiteral("GiB");
}

QString memoryText(double bytes) {
  if (bytes < kGiB) return QString::number(bytes / kMiB, 'f', 0) + QStringLiteral(" MiB");
  const double gib = bytes / kGiB;
  return QString::number(gib, 'f', gib >= 10.0 ? 1 : 2) + QStringLiteral(" GiB");
}

// Values are written on bars only while a bar is wide enough for them.
constexpr int kMostSeriesWithValues = 2;

QString axisNumber(double bytes, const MemoryAxis& axis) {
  const double value = bytes / axis.unitBytes;
  const int decimals = axis.unit == QStringLiteral("MiB") ? 0 : (value >= 10.0 ? 1 : 2);
  return QString::number(value, 'f', decimals);
}

bool hasPeak(const AblationSeries& series) {
  return std::any_of(series.steps.begin(), series.steps.end(),
                     [](const auto* config) { return config != nullptr && config->peakBytes > 0; });
}

bool isEngine(const AblationSeries& series) {
  return series.source == tb::bench::ResultSource::Engine;
}

}  // namespace

PeakMemoryChart::PeakMemoryChart(QWidget* parent)
    : AblationChart(QStringLiteral("ablation-peak-memory"), parent) {
  setObjectName(QStringLiteral("peakMemoryChart"));
  rebuild();
}

void PeakMemoryChart::forget() { bars_.clear(); }

void PeakMemoryChart::drawResults() {
  useChainAxis();
  std::vector<AblationSeries> all = groupIntoSeries(results());
  std::erase_if(all, [](const AblationSeries& series) { return !hasPeak(series); });
  if (all.empty()) {
    showMessage(tr("These results record no peak memory"));
    return;
  }
  const bool anyEngine = std::any_of(all.begin(), all.end(), isEngine);
  const bool anyCluster = !std::all_of(all.begin(), all.end(), isEngine);
  const bool split = anyEngine && anyCluster;
  // The budget is the engine's; without engine bars there is nothing under it.
  const double budget = anyEngine ? static_cast<double>(results().memoryBudgetBytes) : 0.0;
  // Without a second kind of series everything shares the left axis.
  MemoryAxis engineAxis;
  engineAxis.axis = yAxis;
  engineAxis.topBytes = budget;
  MemoryAxis clusterAxis;
  clusterAxis.axis = yAxis2;
  const auto axisOf = [&](const AblationSeries& series) -> MemoryAxis& {
    return split && !isEngine(series) ? clusterAxis : engineAxis;
  };
  for (const AblationSeries& series : all) {
    MemoryAxis& axis = axisOf(series);
    for (const auto* config : series.steps) {
      if (config != nullptr) {
        axis.topBytes = std::max(axis.topBytes, static_cast<double>(config->peakBytes));
      }
    }
  }
  chooseUnit(engineAxis);
  chooseUnit(clusterAxis);

  const auto count = static_cast<int>(all.size());
  QStringList names;
  for (int index = 0; index < count; ++index) {
    const AblationSeries& series = all.at(static_cast<std::size_t>(index));
    const MemoryAxis& axis = axisOf(series);
    auto* bars = new QCPBars(xAxis, axis.axis);
    bars->setName(series.name);
    bars->setWidth(seriesWidth(count) * 0.92);
    const QColor color = seriesColor(theme(), index);
    bars->setBrush(color);
    bars->setPen(QPen(color.darker(120), 1));
    for (int position = 0; position < kChainLength; ++position) {
      const auto* config = series.steps.at(static_cast<std::size_t>(position));
      if (config == nullptr || config->peakBytes == 0) continue;
      const auto bytes = static_cast<double>(config->peakBytes);
      AblationBar bar;
      bar.series = series.name;
      bar.label = QString::fromStdString(config->label);
      bar.chainIndex = position;
      bar.value = bytes / kGiB;
      bar.low = bar.value;
      bar.high = bar.value;
      const double key = seriesKey(position, index, count);
      bars->addData(key, bytes / axis.unitBytes);
      bars_.append(bar);

      if (count > kMostSeriesWithValues) continue;  // bars too narrow: the hover has it
      auto* text = new QCPItemText(this);
      text->setClipToAxisRect(false);
      text->position->setAxes(xAxis, axis.axis);
      text->position->setCoords(key, bytes / axis.unitBytes);
      text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
      text->setPadding(QMargins(0, 0, 0, 2));
      QFont font = this->font();
      font.setPointSizeF(font.pointSizeF() * 0.85);
      text->setFont(font);
      text->setColor(theme().foreground);
      // Beside another series the axis gives the unit, and the bar has room for digits only.
      text->setText(count == 1 ? memoryText(bytes) : axisNumber(bytes, axis));
    }
    names.append(series.name);
  }
  setSeriesNames(names);

  // Headroom keeps the value written on the tallest bar inside the plot.
  for (const MemoryAxis* axis : {&engineAxis, &clusterAxis}) {
    const double top = axis->topBytes > 0.0 ? axis->topBytes / axis->unitBytes : 1.0;
    axis->axis->setRange(0.0, top * 1.15);
  }
  yAxis2->setVisible(split);
  if (split) {
    yAxis->setLabel(tr("Engine (%1)").arg(engineAxis.unit));
    // Short titles (the chart's own says peak memory): a longer one is cut
    // at the plot's height in a 1280 px window.
    yAxis2->setLabel(tr("Cluster, per GPU (%1)").arg(clusterAxis.unit));
  } else if (anyEngine) {
    yAxis->setLabel(tr("Peak (%1)").arg(engineAxis.unit));
  } else {
    yAxis->setLabel(tr("Peak per GPU (%1)").arg(engineAxis.unit));
  }
  if (budget > 0.0) {
    const QColor lineColor = theme().dark ? QColor(0xFF, 0x80, 0x80) : QColor(0xC0, 0x1C, 0x28);
    QCPGraph* line = addGraph(xAxis, engineAxis.axis);
    line->setName(tr("engine memory budget %1").arg(memoryText(budget)));
    line->setPen(QPen(lineColor, 1.5, Qt::DashLine));
    line->setSelectable(QCP::stNone);
    const double value = budget / engineAxis.unitBytes;
    line->addData(-1.0, value);
    line->addData(kChainLength, value);
  }
}

QString PeakMemoryChart::toolTipAt(const QPointF& position) const {
  const AblationBar* bar = barAt(bars_, position);
  if (bar == nullptr) return {};
  QString text =
      tr("%1 (%2)\npeak memory %3").arg(bar->label, bar->series, memoryText(bar->value * kGiB));
  for (const AblationSeries& series : groupIntoSeries(results())) {
    if (series.name == bar->series && !isEngine(series)) text += tr(" per GPU");
  }
  return text;
}

}  // namespace tb::plotting
