// Reports embed the same four charts the Ablation page shows, drawn by the
// same classes offscreen in the light theme (a report is read on paper and
// in browsers with white pages), as SVG so they stay sharp when zoomed.
#pragma once

#include <QSize>

#include "tb/bench/results.hpp"
#include "tb/report/report.hpp"

namespace tb::plotting {

/// Renders throughput (normalised to Base), peak memory, step times and loss
/// curves of `results` as SVG charts of `size` pixels for a report. Needs a
/// QApplication (the offscreen platform will do). Charts that fail to render
/// or have nothing to show are left out, so the list may be shorter than
/// four; when it is empty, the note says why, for the report's reader.
[[nodiscard]] tb::report::ReportCharts renderAblationCharts(
    const tb::bench::AblationResults& results, const QSize& size);

}  // namespace tb::plotting
