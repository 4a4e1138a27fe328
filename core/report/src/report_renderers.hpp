// One renderer per format behind report.cpp's dispatch; internal to the module.
#pragma once

#include <string>

#include "tb/report/report.hpp"

namespace tb::report::detail {

[[nodiscard]] std::string renderHtml(const bench::AblationResults& results,
                                     const ReportCharts& charts);
[[nodiscard]] std::string renderMarkdown(const bench::AblationResults& results);
[[nodiscard]] std::string renderCsv(const bench::AblationResults& results);
[[nodiscard]] std::string renderJson(const bench::AblationResults& results);

}  // namespace tb::report::detail
