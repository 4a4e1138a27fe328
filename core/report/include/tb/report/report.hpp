// A report is one model (the table of configurations with speedups, the
// machine, the image configuration) rendered to HTML, Markdown, CSV or JSON.
// Charts are passed in already rendered, because drawing them needs the
// plotting module (Qt) and core/ stays Qt-free; the HTML embeds them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/bench/results.hpp"
#include "tb/common/expected.hpp"

namespace tb::report {

enum class ReportFormat { Html, Markdown, Csv, Json };

/// "html", "md" (or "markdown"), "csv", "json".
[[nodiscard]] std::optional<ReportFormat> parseReportFormat(std::string_view text);

/// A chart rendered by the caller, embedded in HTML reports.
struct ReportChart {
  std::string title;
  std::string mimeType;  ///< "image/svg+xml" or "image/png"
  std::string data;      ///< the file's bytes
};

/// The charts section of an HTML report: what the caller drew, and a note for
/// the reader when charts are missing (a build without the plotting code,
/// results with nothing to chart), shown where the charts would be.
struct ReportCharts {
  std::vector<ReportChart> charts;
  std::string note;  ///< one sentence; empty: no note
};

/// One line of the report's table.
struct ReportRow {
  std::string label;
  std::string source;  ///< "engine" or "cluster"
  std::string model;
  int gpus = 0;
  std::string throughputUnit;
  bench::Summary throughput;
  double speedupOverBase = 0.0;  ///< 0 when there is no Base of the same source, model and unit
  double stepTimeMedianS = 0.0;
  std::uint64_t peakBytes = 0;
  double mfu = 0.0;
  double lossFirst = 0.0;
  double lossLast = 0.0;
  int failedRuns = 0;  ///< runs that ended oom, failed or interrupted
  /// Imported runs: seconds their logs timed as not training (in-loop
  /// evaluation, prediction), left out of the throughput, over every run.
  double excludedSeconds = 0.0;
  std::vector<std::string> excludedKinds;
};

/// "throughput over training time only: the 61258.5 s of eval and predict
/// that the log timed inside the run are left out"; empty when none were.
[[nodiscard]] std::string excludedTimeNote(const ReportRow& row);

/// The table, in chain order; each row's speedup is over the Base of its own
/// source, model and unit, so cluster and engine numbers are never mixed.
[[nodiscard]] std::vector<ReportRow> reportRows(const bench::AblationResults& results);

/// Renders the whole report; only HTML uses `charts`.
[[nodiscard]] std::string renderReport(const bench::AblationResults& results, ReportFormat format,
                                       const ReportCharts& charts = {});

/// Renders and writes atomically.
[[nodiscard]] Status writeReport(const std::filesystem::path& path,
                                 const bench::AblationResults& results, ReportFormat format,
                                 const ReportCharts& charts = {});

}  // namespace tb::report
