// How an ablation's configurations become chart series. A series is the
// chain of one source, model, GPU count and unit (the grouping the report's
// speedups use), so a bar is only ever compared with the Base it was
// measured against. Series sit side by side at each chain position with
// fixed offsets, which every chart and its hover test compute the same way.
#pragma once

#include <QString>

#include <array>
#include <vector>

#include "tb/bench/results.hpp"

namespace tb::plotting {

/// Number of positions on the chain axis (Base, AC2, +CompilerOpt, +CkptOpt).
inline constexpr int kChainLength = 4;

/// One chain of configurations that belong together in a chart.
struct AblationSeries {
  QString name;  ///< "engine · small", "cluster · llama3-8b · 8 GPUs"
  tb::bench::ResultSource source = tb::bench::ResultSource::Engine;
  QString unit;  ///< the throughput unit, e.g. "tokens/s/gpu"
  /// The configuration at each chain position, nullptr where it is missing.
  std::array<const tb::bench::ConfigurationResult*, kChainLength> steps{};

  [[nodiscard]] const tb::bench::ConfigurationResult* base() const { return steps[0]; }
};

/// The series of `results` in first-seen order (engine results come first in
/// results.json, imports after). Pointers point into `results`. Labels the
/// chain does not know are skipped; a repeated label keeps its first entry.
[[nodiscard]] std::vector<AblationSeries> groupIntoSeries(
    const tb::bench::AblationResults& results);

/// The short axis label of a chain position ("+CkptOpt").
[[nodiscard]] QString shortChainLabel(int chainIndex);

/// The width of one bar or box when `seriesCount` series share a position.
[[nodiscard]] double seriesWidth(int seriesCount);

/// The x coordinate of series `seriesIndex` at `chainIndex`.
[[nodiscard]] double seriesKey(int chainIndex, int seriesIndex, int seriesCount);

/// A throughput in its unit, with thousands grouped ("3,420 tokens/s/gpu").
[[nodiscard]] QString formatThroughput(double value, const QString& unit);

}  // namespace tb::plotting
