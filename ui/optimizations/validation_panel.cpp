// Every change of the file list re-validates the whole list: runs are cheap
// and it keeps the table a pure function of (files, catalog), so loading an
// extra catalog re-judges image tags without any bookkeeping.
#include "ui/optimizations/validation_panel.h"

#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/catalog_session.h"
#include "ui/optimizations/file_viewer_dialog.h"
#include "ui/optimizations/finding_filter_proxy.h"
#include "ui/optimizations/finding_table_model.h"

namespace tb::ui {

ValidationPanel::ValidationPanel(CatalogSession& session, QWidget* parent)
    : QWidget(parent), session_(session) {
  setObjectName(QStringLiteral("validationPanel"));
  setAcceptDrops(true);
  model_ = new FindingTableModel(this);
  proxy_ = new FindingFilterProxy(this);
  proxy_->setSourceModel(model_);

  auto* add = new QPushButton(tr("Add files\u2026"), this);
  add->setObjectName(QStringLiteral("addFilesButton"));
  add->setToolTip(
      tr("DeepSpeed JSON, env files, Kubernetes manifests, Dockerfiles and "
         "TrainingArguments scripts"));
  clear_ = new QPushButton(tr("Clear"), this);
  clear_->setObjectName(QStringLiteral("clearFilesButton"));
  severityFilter_ = new QComboBox(this);
  severityFilter_->setObjectName(QStringLiteral("severityFilter"));
  severityFilter_->addItem(tr("All findings"), static_cast<int>(tb::config::Severity::Info));
  severityFilter_->addItem(tr("Warnings and errors"),
                           static_cast<int>(tb::config::Severity::Warning));
  severityFilter_->addItem(tr("Errors only"), static_cast<int>(tb::config::Severity::Error));
  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(160);
  progress_->setTextVisible(false);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setObjectName(QStringLiteral("cancelValidationButton"));
  cancel_->hide();
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("validationSummary"));
  summary_->setWordWrap(true);

  auto* bar = new QHBoxLayout;
  bar->addWidget(add);
  bar->addWidget(clear_);
  bar->addWidget(progress_);
  bar->addWidget(cancel_);
  bar->addStretch(1);
  bar->addWidget(new QLabel(tr("Show"), this));
  bar->addWidget(severityFilter_);

  dropHint_ = new QLabel(tr("Drop DeepSpeed JSON, env files, Kubernetes manifests, Dockerfiles "
                            "or TrainingArguments scripts here to check them against the "
                            "image's notes and the release catalog."),
                         this);
  dropHint_->setWordWrap(true);
  dropHint_->setAlignment(Qt::AlignCenter);
  dropHint_->setForegroundRole(QPalette::PlaceholderText);

  view_ = new QTableView(this);
  view_->setObjectName(QStringLiteral("findingsView"));
  view_->setModel(proxy_);
  view_->setSortingEnabled(true);
  view_->sortByColumn(FindingTableModel::SeverityColumn, Qt::AscendingOrder);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::SingleSelection);
  view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view_->setWordWrap(false);
  view_->verticalHeader()->hide();
  view_->horizontalHeader()->setSectionResizeMode(FindingTableModel::SeverityColumn,
                                                  QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setSectionResizeMode(FindingTableModel::FileColumn,
                                                  QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setSectionResizeMode(FindingTableModel::PlaceColumn,
                                                  QHeaderView::Interactive);
  view_->horizontalHeader()->setSectionResizeMode(FindingTableModel::MessageColumn,
                                                  QHeaderView::Stretch);
  view_->horizontalHeader()->setSectionResizeMode(FindingTableModel::FixColumn,
                                                  QHeaderView::Stretch);
  view_->setColumnWidth(FindingTableModel::PlaceColumn, 200);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(dropHint_);
  layout->addWidget(view_, 1);
  layout->addWidget(summary_);

  connect(add, &QPushButton::clicked, this, &ValidationPanel::chooseFiles);
  connect(clear_, &QPushButton::clicked, this, &ValidationPanel::clearFiles);
  connect(cancel_, &QPushButton::clicked, &validation_, &BackgroundTask::cancel);
  connect(severityFilter_, &QComboBox::currentIndexChanged, this, [this] {
    proxy_->setLowestSeverity(
        static_cast<tb::config::Severity>(severityFilter_->currentData().toInt()));
  });
  connect(view_, &QTableView::activated, this, &ValidationPanel::openFinding);
  connect(&validation_, &BackgroundTask::progressed, this, [this](qint64 done, qint64 total) {
    progress_->setRange(0, static_cast<int>(total));
    progress_->setValue(static_cast<int>(done));
  });
  connect(&session_, &CatalogSession::catalogChanged, this, &ValidationPanel::revalidate);
  revalidate();
}

bool ValidationPanel::isBusy() const { return validation_.isRunning(); }

void ValidationPanel::addFiles(const QStringList& paths) {
  bool added = false;
  for (const QString& path : paths) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (path.isEmpty() || files_.contains(absolute)) continue;
    files_.append(absolute);
    added = true;
  }
  if (!added) return;
  Q_EMIT filesChanged(files_);
  revalidate();
}

void ValidationPanel::setFiles(const QStringList& paths) {
  files_.clear();
  for (const QString& path : paths) {
    if (!path.isEmpty() && !files_.contains(path)) files_.append(path);
  }
  revalidate();
}

void ValidationPanel::clearFiles() {
  if (files_.isEmpty()) return;
  files_.clear();
  Q_EMIT filesChanged(files_);
  revalidate();
}

void ValidationPanel::chooseFiles() {
  const QStringList paths = QFileDialog::getOpenFileNames(
      this, tr("Files to check"), QString(),
      tr("Configurations (*.json *.env *.yaml *.yml *.py Dockerfile* Containerfile* "
         "*.Dockerfile);;All files (*)"));
  addFiles(paths);
}

void ValidationPanel::revalidate() {
  const bool empty = files_.isEmpty();
  dropHint_->setVisible(empty);
  view_->setVisible(!empty);
  clear_->setEnabled(!empty);
  if (empty) {
    validation_.cancel();
    model_->setRows({});
    summary_->setText(tr("No files yet: drop some here or use Add files\u2026"));
    return;
  }
  const bool wasBusy = validation_.isRunning();
  summary_->setText(tr("Checking %n file(s)\u2026", nullptr, static_cast<int>(files_.size())));
  progress_->setRange(0, 0);
  progress_->show();
  cancel_->show();
  // The worker gets copies: the list and the catalog may change while it reads.
  validation_.start(
      [paths = files_, catalog = session_.catalog()](const tb::StopToken& stop,
                                                     const tb::ProgressFn& progress) {
        return validatePaths(paths, catalog, stop, progress);
      },
      [this](const ValidationResult& result) { onFinished(result); });
  if (!wasBusy) Q_EMIT busyChanged(true);
}

void ValidationPanel::onFinished(const ValidationResult& result) {
  progress_->hide();
  cancel_->hide();
  if (files_.isEmpty()) {  // cleared while the run was in flight: its rows are stale
    Q_EMIT busyChanged(false);
    return;
  }
  model_->setRows(result.rows);
  view_->resizeRowsToContents();
  const int errors = model_->count(tb::config::Severity::Error);
  const int warnings = model_->count(tb::config::Severity::Warning);
  const int infos = model_->count(tb::config::Severity::Info);
  QString text = tr("%n file(s) checked: ", nullptr, result.fileCount) +
                 tr("%n error(s), ", nullptr, errors) + tr("%n warning(s), ", nullptr, warnings) +
                 tr("%n note(s).", nullptr, infos);
  if (!result.cleanFiles.isEmpty()) {
    text += QLatin1Char(' ') +
            tr("No findings in %1.").arg(result.cleanFiles.join(QStringLiteral(", ")));
  }
  if (result.cancelled) text += QLatin1Char(' ') + tr("Cancelled before the last files.");
  if (!result.rows.empty()) text += QLatin1Char(' ') + tr("Double-click a finding to see it.");
  summary_->setText(text);
  Q_EMIT busyChanged(false);
  Q_EMIT validationFinished();
}

void ValidationPanel::openFinding(const QModelIndex& proxyIndex) {
  if (!proxyIndex.isValid()) return;
  const QModelIndex index = proxyIndex.siblingAtColumn(0);
  if (viewer_ == nullptr) viewer_ = new FileViewerDialog(this);
  viewer_->showFile(
      index.data(FindingTableModel::FilePathRole).toString(),
      index.data(FindingTableModel::LineRole).toInt(),
      static_cast<tb::config::FileKind>(index.data(FindingTableModel::FileKindRole).toInt()));
  viewer_->show();
  viewer_->raise();
}

void ValidationPanel::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void ValidationPanel::dropEvent(QDropEvent* event) {
  QStringList paths;
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile()) paths.append(url.toLocalFile());
  }
  addFiles(paths);
  event->acceptProposedAction();
}

}  // namespace tb::ui
