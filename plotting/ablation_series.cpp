// Series are found by a linear scan: an ablation has a handful of
// configurations per source, so a map would only add ceremony.
#include "plotting/ablation_series.h"

#include <QLocale>

#include "tb/bench/ablation.hpp"

namespace tb::plotting {
namespace {

constexpr double kGroupWidth = 0.8;  // of the unit between chain positions

QString seriesName(const tb::bench::ConfigurationResult& config) {
  QString name = QString::fromStdString(std::string(tb::bench::toString(config.source)));
  if (!config.model.empty()) name += QStringLiteral(" · ") + QString::fromStdString(config.model);
  if (config.gpus > 0) {
    name += config.gpus == 1 ? QStringLiteral(" · 1 GPU")
                             : QStringLiteral(" · %1 GPUs").arg(config.gpus);
  }
  return name;
}

bool sameSeries(const AblationSeries& series, const tb::bench::ConfigurationResult& config) {
  for (const tb::bench::ConfigurationResult* member : series.steps) {
    if (member == nullptr) continue;
    return member->source == config.source && member->model == config.model &&
           member->gpus == config.gpus && member->throughputUnit == config.throughputUnit;
  }
  return false;
}

}  // namespace

std::vector<AblationSeries> groupIntoSeries(const tb::bench::AblationResults& results) {
  std::vector<AblationSeries> groups;
  for (const tb::bench::ConfigurationResult& config : results.configurations) {
    const auto step = tb::bench::parseAblationLabel(config.label);
    if (!step) continue;
    const auto position = static_cast<std::size_t>(tb::bench::chainIndex(*step));
    AblationSeries* series = nullptr;
    for (AblationSeries& candidate : groups) {
      if (sameSeries(candidate, config)) series = &candidate;
    }
    if (series == nullptr) {
      series = &groups.emplace_back();
      series->name = seriesName(config);
      series->source = config.source;
      series->unit = QString::fromStdString(config.throughputUnit);
    }
    if (series->steps.at(position) == nullptr) series->steps.at(position) = &config;
  }
  return groups;
}

QString shortChainLabel(int chainIndex) {
  switch (chainIndex) {
    case 0: return QStringLiteral("Base");
    case 1: return QStringLiteral("AC2");
    case 2: return QStringLiteral("+CompilerOpt");
    case 3: return QStringLiteral("+CkptOpt");
    default: return {};
  }
}

double seriesWidth(int seriesCount) {
  return kGroupWidth / static_cast<double>(seriesCount > 0 ? seriesCount : 1);
}

double seriesKey(int chainIndex, int seriesIndex, int seriesCount) {
  const double width = seriesWidth(seriesCount);
  return chainIndex - kGroupWidth / 2.0 + width * (seriesIndex + 0.5);
}

QString formatThroughput(double value, const QString& unit) {
  const QLocale locale(QLocale::English);
  const int decimals = value >= 100.0 ? 0 : (value >= 10.0 ? 1 : 2);
  return locale.toString(value, 'f', decimals) + QLatin1Char(' ') + unit;
}

}  // namespace tb::plotting
