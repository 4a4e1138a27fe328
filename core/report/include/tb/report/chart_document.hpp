// The charts of a report as they cross from trainbench-charts (which draws
// them with Qt) to `trainbench report` (which links no Qt): one JSON document,
// {"charts":[{"title","mime_type","data"}],"note"}, written and read here.
#pragma once

#include <string>
#include <string_view>

#include "tb/common/expected.hpp"
#include "tb/report/report.hpp"

namespace tb::report {

[[nodiscard]] std::string chartDocument(const ReportCharts& charts);

/// Reads a chart document; charts without data are left out. The error says
/// what is not a chart document.
[[nodiscard]] Expected<ReportCharts> parseChartDocument(std::string_view text);

}  // namespace tb::report
