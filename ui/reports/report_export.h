// The Reports page's formats: the core's four (HTML, Markdown, CSV, JSON)
// plus PDF, which only the GUI makes, from the same HTML laid out by Qt's
// text engine. Every file is written atomically, so an export that fails
// halfway never leaves a truncated report where a good one was.
#pragma once

#include <QString>

#include <optional>
#include <vector>

#include "tb/bench/results.hpp"
#include "tb/common/expected.hpp"
#include "tb/report/report.hpp"

class QTextDocument;

namespace tb::ui {

/// What the Reports page can write.
enum class ReportExportFormat { Html, Markdown, Csv, Json, Pdf };

/// All formats, in the order the page lists them.
[[nodiscard]] std::vector<ReportExportFormat> reportExportFormats();
/// "HTML", "Markdown", "CSV", "JSON", "PDF".
[[nodiscard]] QString displayName(ReportExportFormat format);
/// "html", "md", "csv", "json", "pdf".
[[nodiscard]] QString fileSuffix(ReportExportFormat format);
/// The format a file name's suffix asks for (".htm" is HTML), if any.
[[nodiscard]] std::optional<ReportExportFormat> formatFromPath(const QString& path);
/// True for the formats previewed as rich text (HTML and PDF).
[[nodiscard]] bool isRichText(ReportExportFormat format);

/// The report as text: HTML for HTML and PDF, the core's text otherwise.
[[nodiscard]] QString renderReportText(const tb::bench::AblationResults& results,
                                       ReportExportFormat format,
                                       const tb::report::ReportCharts& charts);

/// Loads a report's HTML into `document`, with each embedded chart (a data:
/// URL) registered as an image resource, so Qt's text engine draws it
/// whatever data: URL support the Qt version has.
void setReportHtml(QTextDocument& document, const QString& html);

/// Writes the report to `path` atomically; the error names the path.
[[nodiscard]] tb::Status exportReport(const QString& path,
                                      const tb::bench::AblationResults& results,
                                      ReportExportFormat format,
                                      const tb::report::ReportCharts& charts);

}  // namespace tb::ui
