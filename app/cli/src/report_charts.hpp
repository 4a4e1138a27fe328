// The charts of an HTML report come from plotting/ (Qt Widgets and
// QCustomPlot), which a headless build does not have. This seam keeps
// report_command.cpp free of Qt: a GUI build links the Qt implementation,
// a headless one an implementation that says why there are no charts.
#pragma once

#include "tb/bench/results.hpp"
#include "tb/report/report.hpp"

namespace tb::cli {

/// Draws the ablation charts of `results` as SVG (GUI builds, offscreen); the
/// note says why there are none when nothing was drawn.
[[nodiscard]] report::ReportCharts renderReportCharts(const bench::AblationResults& results);

}  // namespace tb::cli
