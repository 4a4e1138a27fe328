// The charts of an HTML report come from plotting/ (Qt Widgets and
// QCustomPlot), which a headless build does not have. This seam keeps
// report_command.cpp free of Qt: a GUI build links the Qt implementation,
// a headless one an implementation that says why there are no charts.
#pragma once

#include <string>
#include <vector>

#include "tb/bench/results.hpp"
#include "tb/report/report.hpp"

namespace tb::cli {

/// The charts drawn for a report, or the reason there are none.
struct ReportCharts {
  std::vector<report::ReportChart> charts;
  std::string unavailable;  ///< empty when charts were drawn; otherwise why not
};

/// Draws the ablation charts of `results` as SVG (GUI builds, offscreen).
[[nodiscard]] ReportCharts renderReportCharts(const bench::AblationResults& results);

}  // namespace tb::cli
