// Charts are rendered when the results change, not on every keystroke or
// format switch: drawing four charts offscreen is the one slow part (tens of
// milliseconds), the text formats are instant.
#include "ui/reports/reports_page.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QStandardPaths>
#include <QTextBrowser>
#include <QTextCursor>
#include <QVBoxLayout>

#include "plotting/ablation_report_charts.h"
#include "ui/ablation/ablation_settings.h"
#include "ui/qt_text.h"

namespace tb::ui {
namespace {

// Wide enough to read on a page, narrow enough for A4 at 96 dpi.
constexpr QSize kReportChartSize{680, 340};

}  // namespace

ReportsPage::ReportsPage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("reportsPage"));
  preview_ = new QTextBrowser;
  preview_->setObjectName(QStringLiteral("reportPreview"));
  preview_->setOpenLinks(false);
  preview_->setPlaceholderText(tr("The report appears here once there are results."));

  auto* layout = new QHBoxLayout(this);
  layout->addWidget(buildControls());
  layout->addWidget(preview_, 1);
  onResultsChanged();
}

QWidget* ReportsPage::buildControls() {
  fromAblation_ = new QRadioButton(tr("The Ablation page's results"));
  fromAblation_->setObjectName(QStringLiteral("reportFromAblation"));
  fromAblation_->setChecked(true);
  fromFile_ = new QRadioButton(tr("A results file"));
  fromFile_->setObjectName(QStringLiteral("reportFromFile"));
  fromFile_->setEnabled(false);  // until a file is chosen
  auto* group = new QButtonGroup(this);
  group->addButton(fromAblation_);
  group->addButton(fromFile_);
  auto* browse = new QPushButton(tr("Choose file\u2026"));
  browse->setObjectName(QStringLiteral("reportChooseFile"));
  fileLabel_ = new QLabel;
  fileLabel_->setObjectName(QStringLiteral("reportFile"));
  fileLabel_->setWordWrap(true);
  fileLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  format_ = new QComboBox;
  format_->setObjectName(QStringLiteral("reportFormat"));
  for (ReportExportFormat format : reportExportFormats()) {
    format_->addItem(displayName(format), static_cast<int>(format));
  }
  imageTag_ = new QLineEdit;
  imageTag_->setObjectName(QStringLiteral("reportImageTag"));
  imageTag_->setToolTip(
      tr("The image release the report is about; filled from the "
         "Optimizations page, else from the results"));
  imageNote_ = new QLabel;
  imageNote_->setObjectName(QStringLiteral("reportImageNote"));
  imageNote_->setWordWrap(true);
  export_ = new QPushButton(tr("Export\u2026"));
  export_->setObjectName(QStringLiteral("reportExport"));
  export_->setDefault(true);
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("reportStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* panel = new QWidget;
  auto* column = new QVBoxLayout(panel);
  column->setContentsMargins(0, 0, 0, 0);
  column->addWidget(new QLabel(tr("<b>Results</b>")));
  column->addWidget(fromAblation_);
  column->addWidget(fromFile_);
  column->addWidget(fileLabel_);
  column->addWidget(browse, 0, Qt::AlignLeft);
  column->addSpacing(8);
  auto* form = new QFormLayout;
  form->addRow(tr("Format"), format_);
  form->addRow(tr("Image release"), imageTag_);
  column->addLayout(form);
  column->addWidget(imageNote_);
  column->addSpacing(8);
  column->addWidget(export_, 0, Qt::AlignLeft);
  column->addWidget(status_);
  column->addStretch(1);
  panel->setMinimumWidth(280);
  panel->setMaximumWidth(340);

  connect(fromAblation_, &QRadioButton::toggled, this, &ReportsPage::onResultsChanged);
  connect(browse, &QPushButton::clicked, this, &ReportsPage::chooseFile);
  connect(format_, &QComboBox::currentIndexChanged, this, &ReportsPage::refreshPreview);
  connect(imageTag_, &QLineEdit::textEdited, this, [this] {
    updateImageNote();
    refreshPreview();
  });
  connect(export_, &QPushButton::clicked, this, &ReportsPage::chooseExportPath);
  return panel;
}

void ReportsPage::setAblationResults(const tb::bench::AblationResults& results) {
  ablationResults_ = results;
  if (fromAblation_->isChecked()) onResultsChanged();
}

tb::Status ReportsPage::loadResultsFile(const QString& path) {
  auto results = tb::bench::loadResults(std::filesystem::path(toStdString(path)));
  if (!results) {
    showStatus(tr("Not loaded: %1").arg(toQString(results.error().message)), true);
    return results.error();
  }
  fileResults_ = std::move(*results);
  filePath_ = QFileInfo(path).absoluteFilePath();
  fileLabel_->setText(QDir::toNativeSeparators(filePath_));
  fromFile_->setEnabled(true);
  if (fromFile_->isChecked()) {
    onResultsChanged();
  } else {
    fromFile_->setChecked(true);  // toggles fromAblation_, which refreshes
  }
  showStatus({}, false);
  return {};
}

void ReportsPage::setImageTag(const QString& tag) {
  // A tag the user typed stays; one that came from a page follows the page.
  const bool followsPage = imageTag_->text().isEmpty() || imageTag_->text() == optimizationsTag_;
  optimizationsTag_ = tag;
  if (followsPage) imageTag_->setText(tag);
  updateImageNote();
  refreshPreview();
}

void ReportsPage::setFormat(ReportExportFormat format) {
  format_->setCurrentIndex(format_->findData(static_cast<int>(format)));
}

ReportExportFormat ReportsPage::format() const {
  return static_cast<ReportExportFormat>(format_->currentData().toInt());
}

const tb::bench::AblationResults& ReportsPage::chosenResults() const {
  return fromFile_->isChecked() ? fileResults_ : ablationResults_;
}

tb::bench::AblationResults ReportsPage::reportResults() const {
  tb::bench::AblationResults results = chosenResults();
  const QString tag = imageTag_->text().trimmed();
  if (!tag.isEmpty()) results.imageTag = toStdString(tag);
  return results;
}

void ReportsPage::onResultsChanged() {
  charts_ = chosenResults().configurations.empty()
                ? tb::report::ReportCharts{}
                : tb::plotting::renderAblationCharts(chosenResults(), kReportChartSize);
  updateImageNote();
  refreshPreview();
}

void ReportsPage::refreshPreview() {
  const tb::bench::AblationResults results = reportResults();
  const bool empty = results.configurations.empty();
  export_->setEnabled(!empty);
  if (empty) {
    preview_->clear();
    return;
  }
  const ReportExportFormat chosen = format();
  const QString text = renderReportText(results, chosen, charts_);
  if (isRichText(chosen)) {
    preview_->setFont(QFont());
    setReportHtml(*preview_->document(), text);
  } else {
    preview_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    preview_->setPlainText(text);
  }
  // A new report is read from its title, not from wherever the last one was scrolled.
  preview_->moveCursor(QTextCursor::Start);
  preview_->ensureCursorVisible();
}

void ReportsPage::updateImageNote() {
  const QString typed = imageTag_->text().trimmed();
  const QString fromResults = toQString(chosenResults().imageTag);
  if (typed.isEmpty()) {
    imageTag_->setPlaceholderText(fromResults);
    imageNote_->setText(fromResults.isEmpty()
                            ? tr("No image release: the report will not name one.")
                            : tr("The results' release %1 is used.").arg(fromResults));
  } else if (typed == optimizationsTag_) {
    imageNote_->setText(tr("From the Optimizations page."));
  } else {
    imageNote_->setText(tr("Typed here."));
  }
}

void ReportsPage::chooseFile() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Report From Results"), defaultBenchmarksFolder(),
                                   tr("Results (results.json *.json);;All files (*)"));
  if (!path.isEmpty()) (void)loadResultsFile(path);
}

void ReportsPage::chooseExportPath() {
  const QString folder = lastExportFolder_.isEmpty()
                             ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
                             : lastExportFolder_;
  const QString suffix = fileSuffix(format());
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export Report"), QDir(folder).filePath(QStringLiteral("ablation-report.") + suffix),
      tr("%1 files (*.%2)").arg(displayName(format()), suffix));
  if (path.isEmpty()) return;
  lastExportFolder_ = QFileInfo(path).absolutePath();
  (void)exportTo(path);
}

tb::Status ReportsPage::exportTo(const QString& path) {
  const tb::bench::AblationResults results = reportResults();
  if (results.configurations.empty()) {
    showStatus(tr("Nothing to export: there are no results."), true);
    return tb::makeError(tb::ErrorKind::BadInput, "no results to export");
  }
  tb::Status written = exportReport(path, results, format(), charts_);
  if (!written) {
    showStatus(tr("Not exported: %1").arg(toQString(written.error().message)), true);
    return written;
  }
  showStatus(tr("Exported %1 (%2).").arg(QDir::toNativeSeparators(path), displayName(format())),
             false);
  return written;
}

void ReportsPage::showStatus(const QString& text, bool isError) {
  status_->setText(text);
  status_->setStyleSheet(isError ? QStringLiteral("color: #b3261e;") : QString());
}

}  // namespace tb::ui
