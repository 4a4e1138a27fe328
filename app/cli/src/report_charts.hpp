// The charts of an HTML report come from plotting/ (Qt Widgets and
// QCustomPlot). `trainbench` links no Qt, so that the binary that trains
// loads none: the charts are drawn by trainbench-charts (app/charts), a child
// started only for HTML reports. A build or install without it still writes
// the report, and the note says why it has no charts.
#pragma once

#include <filesystem>

#include "tb/bench/results.hpp"
#include "tb/report/report.hpp"

namespace tb::cli {

/// trainbench-charts beside this program's own binary.
[[nodiscard]] std::filesystem::path chartRendererPath();

/// Draws the ablation charts of `results` as SVG through `renderer`; the
/// note says why there are none when nothing was drawn.
[[nodiscard]] report::ReportCharts renderReportCharts(
    const bench::AblationResults& results,
    const std::filesystem::path& renderer = chartRendererPath());

}  // namespace tb::cli
