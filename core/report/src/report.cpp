// The JSON report is the results document plus the computed table, so a
// script gets the speedups without re-implementing the "same Base" rule.
#include "tb/report/report.hpp"

#include <nlohmann/json.hpp>

#include "report_renderers.hpp"
#include "tb/common/atomic_file.hpp"

namespace tb::report {

namespace detail {

std::string renderJson(const bench::AblationResults& results) {
  nlohmann::ordered_json table = nlohmann::ordered_json::array();
  for (const ReportRow& row : reportRows(results)) {
    table.push_back({{"label", row.label},
                     {"source", row.source},
                     {"model", row.model},
                     {"gpus", row.gpus},
                     {"throughput_unit", row.throughputUnit},
                     {"throughput_median", row.throughput.median},
                     {"speedup_vs_base", row.speedupOverBase},
                     {"step_time_median_s", row.stepTimeMedianS},
                     {"peak_bytes", row.peakBytes},
                     {"mfu", row.mfu},
                     {"failed_runs", row.failedRuns},
                     {"excluded_seconds", row.excludedSeconds},
                     {"excluded_kinds", row.excludedKinds}});
  }
  const nlohmann::ordered_json document{
      {"results", nlohmann::ordered_json::parse(bench::resultsToJson(results))},
      {"table", std::move(table)}};
  return document.dump(2) + "\n";
}

}  // namespace detail

std::string renderReport(const bench::AblationResults& results, ReportFormat format,
                         const ReportCharts& charts) {
  switch (format) {
    case ReportFormat::Html: return detail::renderHtml(results, charts);
    case ReportFormat::Markdown: return detail::renderMarkdown(results);
    case ReportFormat::Csv: return detail::renderCsv(results);
    case ReportFormat::Json: return detail::renderJson(results);
  }
  return {};
}

Status writeReport(const std::filesystem::path& path, const bench::AblationResults& results,
                   ReportFormat format, const ReportCharts& charts) {
  return writeFileAtomically(path, renderReport(results, format, charts));
}

}  // namespace tb::report
