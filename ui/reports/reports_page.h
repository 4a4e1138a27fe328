// The Reports page: the ablation results (the Ablation page's current
// selection, or a results file) rendered as a report, previewed, and
// exported as HTML, Markdown, CSV, JSON or PDF. Charts are drawn by the
// same plotting code as the Ablation page, offscreen, in the light theme.
#pragma once

#include <QString>
#include <QWidget>

#include <vector>

#include "tb/bench/results.hpp"
#include "tb/common/expected.hpp"
#include "tb/report/report.hpp"
#include "ui/reports/report_export.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QTextBrowser;

namespace tb::ui {

/// Where the report's results come from, the format, the image
/// configuration, a preview and Export.
class ReportsPage : public QWidget {
  Q_OBJECT

 public:
  explicit ReportsPage(QWidget* parent = nullptr);

  /// The Ablation page's merged results (shown when "Ablation page" is chosen).
  void setAblationResults(const tb::bench::AblationResults& results);
  /// Loads a results.json and switches the source to it; on error the
  /// status line names the file and the JSON path at fault.
  tb::Status loadResultsFile(const QString& path);
  /// The image release chosen on the Optimizations page; used when the
  /// user has not typed another.
  void setImageTag(const QString& tag);
  void setFormat(ReportExportFormat format);
  [[nodiscard]] ReportExportFormat format() const;

  /// The results the report is made of, with the image tag applied.
  [[nodiscard]] tb::bench::AblationResults reportResults() const;
  /// Writes the report in the chosen format to `path`.
  tb::Status exportTo(const QString& path);

  [[nodiscard]] const std::vector<tb::report::ReportChart>& charts() const {
    return charts_.charts;
  }

 private:
  QWidget* buildControls();
  [[nodiscard]] const tb::bench::AblationResults& chosenResults() const;
  void chooseFile();
  void chooseExportPath();
  void onResultsChanged();
  void refreshPreview();
  void updateImageNote();
  void showStatus(const QString& text, bool isError);

  tb::bench::AblationResults ablationResults_;
  tb::bench::AblationResults fileResults_;
  QString filePath_;
  QString optimizationsTag_;
  tb::report::ReportCharts charts_;
  QRadioButton* fromAblation_ = nullptr;
  QRadioButton* fromFile_ = nullptr;
  QLabel* fileLabel_ = nullptr;
  QComboBox* format_ = nullptr;
  QLineEdit* imageTag_ = nullptr;
  QLabel* imageNote_ = nullptr;
  QTextBrowser* preview_ = nullptr;
  QPushButton* export_ = nullptr;
  QLabel* status_ = nullptr;
  QString lastExportFolder_;
};

}  // namespace tb::ui
