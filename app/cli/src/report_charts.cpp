// A renderer that is missing, fails or answers nonsense never fails the
// report: the table is the report, the charts are an extra, and the note in
// the charts section says what went wrong.
#include "report_charts.hpp"

#include <chrono>
#include <system_error>

#include "command.hpp"
#include "tb/common/subprocess.hpp"
#include "tb/report/chart_document.hpp"

namespace tb::cli {
namespace {

report::ReportCharts noCharts(const std::string& why) { return {{}, "No charts: " + why + "."}; }

}  // namespace

std::filesystem::path chartRendererPath() {
  const auto self = thisProgram();
  return self ? self->parent_path() / "trainbench-charts" : std::filesystem::path();
}

report::ReportCharts renderReportCharts(const bench::AblationResults& results,
                                        const std::filesystem::path& renderer) {
  std::error_code error;
  if (renderer.empty() || !std::filesystem::exists(renderer, error)) {
    return noCharts(
        "they are drawn by trainbench-charts, which is not installed beside "
        "trainbench (a build without the GUI has none)");
  }
  ProcessOptions options;
  options.timeout = std::chrono::seconds(120);
  options.standardInput = bench::resultsToJson(results);
  const Expected<ProcessResult> ran = runProcess({renderer.string()}, options);
  if (!ran) return noCharts(ran.error().message);
  if (ran->timedOut) return noCharts(renderer.string() + " did not finish within 120 s");
  if (ran->exitCode != 0) {
    std::string why = renderer.string() + " failed";
    if (!ran->standardError.empty()) why += ": " + ran->standardError.substr(0, 300);
    while (!why.empty() && (why.back() == '\n' || why.back() == '.')) why.pop_back();
    return noCharts(why);
  }
  Expected<report::ReportCharts> drawn = report::parseChartDocument(ran->standardOutput);
  if (!drawn) return noCharts(renderer.string() + " answered " + drawn.error().message);
  return std::move(*drawn);
}

}  // namespace tb::cli
