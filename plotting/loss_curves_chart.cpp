// A curve's colour says which configuration it is (the same colour for a
// chain position in every series) and its dash says which series, so four
// engine curves and four cluster curves stay tellable apart. The legend says
// exactly that, in keys (four colours, one dash per series), rather than one
// entry per curve whose long names would not fit under a small chart.
// Identical math should give overlapping curves; one that peels away is the
// finding.
#include "plotting/ablation_charts.h"

#include <array>
#include <limits>

#include "plotting/ablation_series.h"
#include "plotting/legend_key_item.h"
#include "tb/bench/ablation.hpp"

namespace tb::plotting {

LossCurvesChart::LossCurvesChart(QWidget* parent)
    : AblationChart(QStringLiteral("ablation-loss-curves"), parent) {
  setObjectName(QStringLiteral("lossCurvesChart"));
  rebuild();
}

QStringList LossCurvesChart::curveNames() const {
  QStringList names;
  for (int index = 0; index < graphCount(); ++index) names.append(graph(index)->name());
  return names;
}

void LossCurvesChart::drawResults() {
  const std::vector<AblationSeries> all = groupIntoSeries(results());
  static constexpr Qt::PenStyle kDashes[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine,
                                             Qt::DashDotLine};
  double lowest = std::numeric_limits<double>::max();
  double highest = std::numeric_limits<double>::lowest();
  int longest = 0;
  QStringList names;
  std::array<bool, kChainLength> positionDrawn{};
  QVector<Qt::PenStyle> dashes;
  for (std::size_t index = 0; index < all.size(); ++index) {
    const AblationSeries& series = all.at(index);
    bool drawn = false;
    for (int position = 0; position < kChainLength; ++position) {
      const auto* config = series.steps.at(static_cast<std::size_t>(position));
      if (config == nullptr || config->lossCurve.empty()) continue;
      QCPGraph* curve = addGraph();
      curve->setName(
          QStringLiteral("%1 (%2)").arg(QString::fromStdString(config->label), series.name));
      curve->setPen(QPen(seriesColor(theme(), position), 1.8, kDashes[index % 4]));
      curve->removeFromLegend();
      positionDrawn.at(static_cast<std::size_t>(position)) = true;
      const auto& losses = config->lossCurve;
      // An imported log says at which step each loss was logged; an engine
      // run has one per step from 1.
      const bool stepped = config->lossSteps.size() == losses.size();
      for (std::size_t i = 0; i < losses.size(); ++i) {
        const double step =
            stepped ? static_cast<double>(config->lossSteps.at(i)) : static_cast<double>(i + 1);
        curve->addData(step, losses.at(i));
        lowest = std::min(lowest, losses.at(i));
        highest = std::max(highest, losses.at(i));
        longest = std::max(longest, static_cast<int>(step));
      }
      if (losses.size() < 2) curve->setScatterStyle(QCPScatterStyle::ssDisc);
      drawn = true;
    }
    if (drawn) {
      names.append(series.name);
      dashes.append(kDashes[index % 4]);
    }
  }
  setSeriesNames(names);
  // Colour keys in chain order, then one dash key per series.
  for (int position = 0; position < kChainLength; ++position) {
    if (!positionDrawn.at(static_cast<std::size_t>(position))) continue;
    const std::string_view label =
        tb::bench::label(tb::bench::kAblationSteps.at(static_cast<std::size_t>(position)));
    const QString full = QString::fromUtf8(label.data(), static_cast<qsizetype>(label.size()));
    legend->addItem(new LegendKeyItem(legend, QPen(seriesColor(theme(), position), 3.0),
                                      shortChainLabel(position), tr("Colour of %1").arg(full)));
  }
  for (qsizetype index = 0; index < names.size(); ++index) {
    legend->addItem(new LegendKeyItem(legend, QPen(theme().foreground, 1.8, dashes.at(index)),
                                      names.at(index), tr("Dash of %1").arg(names.at(index))));
  }
  xAxis->setLabel(tr("Step"));
  yAxis->setLabel(tr("Loss"));
  if (graphCount() == 0) {
    xAxis->setRange(0.0, 1.0);
    yAxis->setRange(0.0, 1.0);
    showMessage(tr("These results record no loss curves"));
    return;
  }
  const double margin = std::max((highest - lowest) * 0.08, 0.01);
  xAxis->setRange(longest > 1 ? 1.0 : 0.0, std::max(longest, 2));
  yAxis->setRange(lowest - margin, highest + margin);
}

QString LossCurvesChart::toolTipAt(const QPointF& position) const {
  if (legend->visible()) {
    for (int index = 0; index < legend->itemCount(); ++index) {
      // qobject_cast of an empty cell (nullptr) is nullptr.
      const auto* key = qobject_cast<const LegendKeyItem*>(legend->item(index));
      if (key != nullptr && key->outerRect().contains(position.toPoint())) return key->toolTip();
    }
  }
  double nearest = selectionTolerance();
  QString text;
  for (int index = 0; index < graphCount(); ++index) {
    const QCPGraph* curve = graph(index);
    QVariant details;
    const double distance = curve->selectTest(position, false, &details);
    if (distance < 0.0 || distance >= nearest) continue;
    const QCPDataSelection hit = details.value<QCPDataSelection>();
    if (hit.isEmpty()) continue;
    const auto point = curve->data()->at(hit.dataRange().begin());
    nearest = distance;
    text = tr("%1\nstep %2: loss %3")
               .arg(curve->name())
               .arg(qRound(point->key))
               .arg(point->value, 0, 'f', 4);
  }
  return text;
}

}  // namespace tb::plotting
