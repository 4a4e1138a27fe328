// An unreadable file is reported as a finding of that file rather than as a
// failure of the run: the user asked about each file, and the others still
// have answers.
#include "ui/optimizations/file_validation.h"

#include <QFileInfo>

#include <filesystem>
#include <string>
#include <vector>

#include "ui/qt_text.h"

namespace tb::ui {

ValidationResult validatePaths(const QStringList& paths, const tb::catalog::Catalog& catalog,
                               const tb::StopToken& stop, const tb::ProgressFn& progress) {
  std::vector<std::filesystem::path> files;
  for (const QString& path : paths) files.emplace_back(toStdString(path));
  auto reports =
      tb::config::validateFiles(files, tb::config::FileKind::Auto, catalog, stop, progress);
  ValidationResult result;
  result.fileCount = static_cast<int>(reports.size());
  result.cancelled = reports.size() < files.size();
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const QString& path = paths[static_cast<qsizetype>(i)];
    auto& report = reports[i];
    if (!report) {
      tb::config::Finding finding;
      finding.severity = tb::config::Severity::Error;
      finding.file = files[i].string();
      finding.rule = "unreadable";
      finding.message = report.error().message;
      finding.fix = "check that the file exists and is readable";
      result.rows.push_back({std::move(finding), path, tb::config::FileKind::Auto});
    } else if (report->findings.empty()) {
      result.cleanFiles.append(QFileInfo(path).fileName());
    } else {
      for (tb::config::Finding& finding : report->findings) {
        result.rows.push_back({std::move(finding), path, report->kind});
      }
    }
  }
  return result;
}

}  // namespace tb::ui
