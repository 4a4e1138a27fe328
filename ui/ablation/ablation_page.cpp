// Every view of the page (table, four charts, summary) is redrawn from one
// merged document whenever a source changes, so they can never disagree; the
// same document is what the Reports page exports.
#include "ui/ablation/ablation_page.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QUrl>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFont>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

#include "plotting/ablation_charts.h"
#include "tb/bench/ablation_runner.hpp"
#include "tb/logs/log_follow.hpp"
#include "ui/ablation/ablation_plan_panel.h"
#include "ui/ablation/ablation_run_panel.h"
#include "ui/ablation/ablation_table_model.h"
#include "ui/data_size.h"
#include "ui/qt_text.h"
#include "ui/runs/trainbench_binary.h"

namespace tb::ui {
namespace {

constexpr int kAblationStderrLinesShown = 6;

QWidget* titled(const QString& title, QWidget* chart) {
  auto* box = new QWidget;
  auto* column = new QVBoxLayout(box);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(2);
  auto* label = new QLabel(title);
  QFont font = label->font();
  font.setBold(true);
  label->setFont(font);
  column->addWidget(label);
  column->addWidget(chart, 1);
  chart->setMinimumSize(280, 200);
  return box;
}

QString machineSummary(const tb::bench::AblationResults& results) {
  if (results.model.empty() && results.machine.cpuModel.empty()) {
    return QCoreApplication::translate("tb::ui::AblationPage",
                                       "Cluster results only; no engine benchmark loaded.");
  }
  QStringList parts;
  parts << QCoreApplication::translate("tb::ui::AblationPage",
                                       "<b>%1</b> \u00b7 %2 steps (%3 warm-up) \u00b7 %4 repeats")
               .arg(toQString(results.model).toHtmlEscaped())
               .arg(results.steps)
               .arg(results.warmupSteps)
               .arg(results.repeats);
  const tb::bench::Machine& machine = results.machine;
  if (!machine.cpuModel.empty()) {
    parts << QCoreApplication::translate("tb::ui::AblationPage", "%1, %2 cores, %3 threads")
                 .arg(toQString(machine.cpuModel).toHtmlEscaped())
                 .arg(machine.cores)
                 .arg(machine.threads);
  }
  if (!machine.libtorchVersion.empty()) {
    parts << QStringLiteral("LibTorch ") + toQString(machine.libtorchVersion).toHtmlEscaped();
  }
  if (results.memoryBudgetBytes > 0) {
    parts << QCoreApplication::translate("tb::ui::AblationPage", "budget %1")
                 .arg(formatDataSize(static_cast<double>(results.memoryBudgetBytes)));
  }
  if (!results.imageTag.empty()) {
    parts << QCoreApplication::translate("tb::ui::AblationPage", "image %1")
                 .arg(toQString(results.imageTag).toHtmlEscaped());
  }
  if (!results.createdAt.empty()) parts << toQString(results.createdAt).toHtmlEscaped();
  return parts.join(QStringLiteral(" \u00b7 "));
}

}  // namespace

AblationPage::AblationPage(const StudioSettings& settings, QWidget* parent)
    : QWidget(parent),
      settings_(settings.access()),
      sources_(new AblationSourceModel(this)),
      table_(new AblationTableModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      process_(new BenchmarkProcess(this)) {
  setObjectName(QStringLiteral("ablationPage"));
  setAcceptDrops(true);
  proxy_->setSourceModel(table_);
  proxy_->setSortRole(AblationTableModel::kSortRole);

  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->setObjectName(QStringLiteral("ablationColumnsSplitter"));
  splitter->addWidget(buildSourcesPanel());
  splitter->addWidget(buildResultsPanel());
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 1);
  splitter->setChildrenCollapsible(false);
  auto* layout = new QHBoxLayout(this);
  layout->addWidget(splitter);

  connect(sources_, &AblationSourceModel::mergedChanged, this, &AblationPage::onMergedChanged);
  connect(runPanel_, &AblationRunPanel::runRequested, this, &AblationPage::startBenchmark);
  connect(runPanel_, &AblationRunPanel::cancelRequested, this, &AblationPage::cancelBenchmark);
  connect(process_, &BenchmarkProcess::progress, runPanel_, &AblationRunPanel::applyProgress);
  connect(process_, &BenchmarkProcess::logLine, runPanel_, &AblationRunPanel::appendLog);
  connect(process_, &BenchmarkProcess::finished, this, &AblationPage::onBenchmarkFinished);
  restoreState();
  onMergedChanged();
}

AblationPage::~AblationPage() = default;

QWidget* AblationPage::buildSourcesPanel() {
  sourceView_ = new QTableView;
  sourceView_->setObjectName(QStringLiteral("ablationSources"));
  sourceView_->setModel(sources_);
  sourceView_->setSelectionBehavior(QAbstractItemView::SelectRows);
  sourceView_->setSelectionMode(QAbstractItemView::SingleSelection);
  sourceView_->verticalHeader()->setVisible(false);
  sourceView_->horizontalHeader()->setSectionResizeMode(AblationSourceModel::File,
                                                        QHeaderView::Stretch);
  sourceView_->horizontalHeader()->setSectionResizeMode(AblationSourceModel::Kind,
                                                        QHeaderView::ResizeToContents);
  sourceView_->horizontalHeader()->setSectionResizeMode(AblationSourceModel::Label,
                                                        QHeaderView::ResizeToContents);
  sourceView_->horizontalHeader()->setSectionResizeMode(AblationSourceModel::Follow,
                                                        QHeaderView::ResizeToContents);
  sourceView_->horizontalHeader()->setSectionResizeMode(AblationSourceModel::Configurations,
                                                        QHeaderView::ResizeToContents);
  // One line per source: a long file name is shortened in the middle (its
  // folder and its end tell files apart), the kind and label stay whole.
  sourceView_->setWordWrap(false);
  sourceView_->setTextElideMode(Qt::ElideMiddle);
  sourceView_->setMinimumHeight(110);
  sourceView_->setToolTip(tr("Untick a file to leave it out of the table, charts and reports"));
  // The header's own ResizeToContents pass can miss a row that arrives from
  // the log worker before the view's first layout (a restored log), leaving
  // "Kind" at its title's width; sizing the short columns on every change
  // of the list keeps them whole.
  const auto fitShortColumns = [this] {
    for (const int column : {AblationSourceModel::Kind, AblationSourceModel::Label,
                             AblationSourceModel::Follow, AblationSourceModel::Configurations}) {
      sourceView_->resizeColumnToContents(column);
    }
  };
  connect(sources_, &QAbstractItemModel::rowsInserted, this, fitShortColumns);
  connect(sources_, &QAbstractItemModel::rowsRemoved, this, fitShortColumns);
  connect(sources_, &QAbstractItemModel::dataChanged, this, fitShortColumns);

  auto* addResults = new QPushButton(tr("Add results\u2026"));
  addResults->setObjectName(QStringLiteral("ablationAddResults"));
  addResults->setToolTip(tr("A results.json written by `trainbench benchmark`"));
  auto* importCluster = new QPushButton(tr("Import cluster\u2026"));
  importCluster->setObjectName(QStringLiteral("ablationImportCluster"));
  importCluster->setToolTip(tr("Cluster runs of the image as CSV or JSON (docs/RESULTS.md)"));
  remove_ = new QPushButton(tr("Remove"));
  remove_->setObjectName(QStringLiteral("ablationRemoveSource"));
  remove_->setEnabled(false);
  message_ = new QLabel;
  message_->setObjectName(QStringLiteral("ablationMessage"));
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->setVisible(false);
  details_ = new QLabel;
  details_->setObjectName(QStringLiteral("ablationSourceDetails"));
  details_->setWordWrap(true);
  details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  details_->setVisible(false);
  logImport_ = new AblationLogImport;

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(addResults);
  buttons->addWidget(importCluster);
  buttons->addWidget(remove_);
  runPanel_ = new AblationRunPanel;
  planPanel_ = new AblationPlanPanel;
  connect(planPanel_, &AblationPlanPanel::resultsWritten, this,
          [this](const QString& path) { (void)addResultsFile(path); });

  auto* panel = new QWidget;
  auto* column = new QVBoxLayout(panel);
  column->setContentsMargins(0, 0, 0, 0);
  auto* heading = new QLabel(tr("<b>Results shown</b>"));
  column->addWidget(heading);
  column->addWidget(sourceView_);
  column->addLayout(buttons);
  column->addWidget(logImport_);
  column->addWidget(details_);
  column->addWidget(message_);
  column->addWidget(planPanel_, 1);
  column->addWidget(runPanel_, 1);
  panel->setMinimumWidth(340);
  panel->setMaximumWidth(440);

  connect(addResults, &QPushButton::clicked, this,
          [this] { chooseFiles(AblationSourceKind::EngineResults); });
  connect(importCluster, &QPushButton::clicked, this,
          [this] { chooseFiles(AblationSourceKind::ClusterImport); });
  connect(remove_, &QPushButton::clicked, this, &AblationPage::removeSelectedSource);
  connect(sourceView_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &AblationPage::onSelectionChanged);
  connect(sources_, &AblationSourceModel::dataChanged, this, &AblationPage::onSelectionChanged);
  connect(logImport_, &AblationLogImport::imported, this, &AblationPage::onLogImported);
  follows_ = new LogFollowSet(this);
  connect(follows_, &LogFollowSet::updated, this, &AblationPage::onFollowUpdate);
  connect(follows_, &LogFollowSet::statusChanged, sources_, &AblationSourceModel::setFollowStatus);
  connect(
      sources_, &AblationSourceModel::followToggled, this,
      [this](const QString& path, bool follow) {
        if (!follow) return follows_->stop(path);
        if (const AblationSource* source = sources_->source(path))
          follows_->follow({source->path, source->label, source->gpusGiven, source->lossPattern});
      });
  connect(logImport_, &AblationLogImport::refused, this,
          [this](const LogImportRequest&, const QString& message) {
            showMessage(tr("Not loaded: %1").arg(message), true);
            saveState();  // a restored log that no longer reads is dropped
          });
  connect(logImport_, &AblationLogImport::labelChosen, this, [this](const QString& label) {
    if (sources_->setLabel(selectedRow(), label)) saveState();
  });
  return panel;
}

QWidget* AblationPage::buildResultsPanel() {
  summary_ = new QLabel;
  summary_->setObjectName(QStringLiteral("ablationSummary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  tableView_ = new QTableView;
  tableView_->setObjectName(QStringLiteral("ablationTable"));
  tableView_->setModel(proxy_);
  tableView_->setSortingEnabled(true);
  tableView_->sortByColumn(AblationTableModel::Configuration, Qt::AscendingOrder);
  tableView_->setSelectionBehavior(QAbstractItemView::SelectRows);
  tableView_->verticalHeader()->setVisible(false);
  tableView_->setAlternatingRowColors(true);
  tableView_->horizontalHeader()->setStretchLastSection(true);
  tableView_->setMinimumHeight(120);

  normalised_ = new QCheckBox(tr("Throughput normalised to Base"));
  normalised_->setObjectName(QStringLiteral("ablationNormalised"));
  normalised_->setChecked(true);
  normalised_->setToolTip(
      tr("Off: absolute throughput (tokens/s; cluster units on the right "
         "axis)"));

  throughput_ = new tb::plotting::AblationThroughputChart;
  throughput_->setObjectName(QStringLiteral("ablationThroughputChart"));
  peak_ = new tb::plotting::PeakMemoryChart;
  peak_->setObjectName(QStringLiteral("ablationPeakChart"));
  stepTime_ = new tb::plotting::StepTimeChart;
  stepTime_->setObjectName(QStringLiteral("ablationStepTimeChart"));
  loss_ = new tb::plotting::LossCurvesChart;
  loss_->setObjectName(QStringLiteral("ablationLossChart"));

  auto* charts = new QWidget;
  auto* grid = new QGridLayout(charts);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->addWidget(titled(tr("Throughput"), throughput_), 0, 0);
  grid->addWidget(titled(tr("Peak memory"), peak_), 0, 1);
  grid->addWidget(titled(tr("Step time"), stepTime_), 1, 0);
  grid->addWidget(titled(tr("Loss"), loss_), 1, 1);

  auto* top = new QWidget;
  auto* topColumn = new QVBoxLayout(top);
  topColumn->setContentsMargins(0, 0, 0, 0);
  topColumn->addWidget(summary_);
  topColumn->addWidget(tableView_, 1);
  auto* bottom = new QWidget;
  auto* bottomColumn = new QVBoxLayout(bottom);
  bottomColumn->setContentsMargins(0, 0, 0, 0);
  bottomColumn->addWidget(normalised_);
  bottomColumn->addWidget(charts, 1);

  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->setObjectName(QStringLiteral("ablationResultsSplitter"));
  splitter->addWidget(top);
  splitter->addWidget(bottom);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 3);
  splitter->setChildrenCollapsible(false);

  connect(normalised_, &QCheckBox::toggled, this, [this](bool on) {
    throughput_->setNormalised(on);
    saveState();
  });
  return splitter;
}

tb::Status AblationPage::addResultsFile(const QString& path) {
  return addFile(path, AblationSourceKind::EngineResults);
}

tb::Status AblationPage::importClusterFile(const QString& path) {
  return addFile(path, AblationSourceKind::ClusterImport);
}

tb::Status AblationPage::addFile(const QString& path, AblationSourceKind kind) {
  tb::Status status = sources_->addFile(path, kind);
  if (!status) {
    showMessage(tr("Not loaded: %1").arg(toQString(status.error().message)), true);
    return status;
  }
  lastFolder_ = QFileInfo(path).absolutePath();
  showMessage({}, false);
  saveState();
  return status;
}

void AblationPage::importLogs(const QStringList& paths) {
  if (paths.isEmpty()) return;
  lastFolder_ = QFileInfo(paths.first()).absolutePath();
  logImport_->setFolder(lastFolder_);
  logImport_->importPaths(paths);
}

void AblationPage::openPaths(const QStringList& paths) {
  QStringList logs;
  for (const QString& path : paths) {
    if (const QString plan = planFolderOf(path); !plan.isEmpty()) {
      openPlanFolder(plan);
      continue;
    }
    const AblationSourceKind kind = guessSourceKind(path);
    if (kind == AblationSourceKind::TrainingLog) {
      logs << path;
    } else if (!addFile(path, kind)) {
      return;  // keep the first error on screen
    }
  }
  importLogs(logs);
}

void AblationPage::openPlanFolder(const QString& folder) {
  lastFolder_ = folder;
  showMessage({}, false);
  planPanel_->openFolder(folder);
}

void AblationPage::onLogImported(const LogImportRequest& request,
                                 const tb::logs::ImportedLog& log) {
  if (tb::Status added =
          sources_->addLog(request.path, log, request.label, request.gpus, request.lossPattern);
      !added) {
    showMessage(tr("Not loaded: %1").arg(toQString(added.error().message)), true);
    return;
  }
  showMessage({}, false);
  saveState();
  // A run still writing its log is followed from the start.
  if (!tb::logs::runEnded(log)) follows_->follow(request);
}

// The label may have been changed since following began: the list's wins.
void AblationPage::onFollowUpdate(const LogImportRequest& request,
                                  const tb::logs::ImportedLog& log) {
  LogImportRequest current = request;
  if (const AblationSource* source = sources_->source(request.path)) current.label = source->label;
  if (tb::Status added =
          sources_->addLog(current.path, log, current.label, current.gpus, current.lossPattern);
      !added) {
    FollowStatus status = follows_->status(request.path);
    status.problem = toQString(added.error().message);
    sources_->setFollowStatus(request.path, status);
  }
}

int AblationPage::selectedRow() const {
  const QModelIndexList rows = sourceView_->selectionModel()->selectedRows();
  return rows.isEmpty() ? -1 : rows.first().row();
}

void AblationPage::onSelectionChanged() {
  const int row = selectedRow();
  remove_->setEnabled(row >= 0);
  const auto& sources = sources_->sources();
  const AblationSource* source = row >= 0 && row < static_cast<int>(sources.size())
                                     ? &sources[static_cast<std::size_t>(row)]
                                     : nullptr;
  if (source == nullptr || !source->log) {
    details_->setVisible(false);
    return;
  }
  logImport_->setLabel(source->label);
  details_->setText(logDetails(*source->log));
  details_->setVisible(true);
}

void AblationPage::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void AblationPage::dropEvent(QDropEvent* event) {
  QStringList paths;
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile()) paths << url.toLocalFile();
  }
  if (paths.isEmpty()) return;
  event->acceptProposedAction();
  openPaths(paths);
}

void AblationPage::chooseFiles(AblationSourceKind kind) {
  const QString folder = lastFolder_.isEmpty() ? defaultBenchmarksFolder() : lastFolder_;
  const bool engine = kind == AblationSourceKind::EngineResults;
  const QStringList paths = QFileDialog::getOpenFileNames(
      this, engine ? tr("Add Engine Results") : tr("Import Cluster Results"), folder,
      engine ? tr("Results (results.json *.json);;All files (*)")
             : tr("Cluster results (*.csv *.json);;All files (*)"));
  for (const QString& path : paths) {
    if (!addFile(path, kind)) break;  // keep the first error on screen
  }
}

void AblationPage::removeSelectedSource() {
  const QModelIndexList rows = sourceView_->selectionModel()->selectedRows();
  if (rows.isEmpty()) return;
  const std::size_t row = static_cast<std::size_t>(rows.first().row());
  if (row < sources_->sources().size()) follows_->stop(sources_->sources()[row].path);
  sources_->removeSource(rows.first().row());
  saveState();
}

void AblationPage::onMergedChanged() {
  results_ = sources_->merged();
  table_->setResults(results_);
  tableView_->resizeColumnsToContents();
  throughput_->setResults(results_);
  peak_->setResults(results_);
  stepTime_->setResults(results_);
  loss_->setResults(results_);
  QString summary = results_.configurations.empty()
                        ? tr("No results yet: add a results.json, import a cluster file, or "
                             "run an ablation.")
                        : machineSummary(results_);
  // First in the line, so nobody reads the medians without knowing they are partial.
  if (const std::string partial = tb::bench::partialNote(results_); !partial.empty()) {
    summary = QStringLiteral("<b>\u26a0 %1</b> \u00b7 ").arg(toQString(partial).toHtmlEscaped()) +
              summary;
  }
  summary_->setText(summary);
  saveState();
  Q_EMIT resultsChanged();
}

bool AblationPage::isBenchmarkRunning() const { return process_->isRunning(); }

void AblationPage::startBenchmark() {
  if (isBenchmarkRunning()) return;
  BenchmarkRequest request = runPanel_->request();
  request.outDir =
      toQString(tb::bench::defaultBenchmarkOutDir(request.model.toStdString()).string());
  lastBenchmark_ = {};
  runPanel_->begin(request.repeats);
  const QString program = trainbenchBinary();
  runPanel_->appendLog(QStringLiteral("$ ") + program + QLatin1Char(' ') +
                       benchmarkArguments(request).join(QLatin1Char(' ')));
  saveState();
  process_->start(program, request);
  // A program that cannot start has been reported (and finished) already.
  if (isBenchmarkRunning()) Q_EMIT benchmarkRunningChanged(true);
}

void AblationPage::cancelBenchmark() {
  if (!isBenchmarkRunning()) return;
  runPanel_->setStatus(tr("Cancelling: the current run stops, finished runs are kept\u2026"));
  runPanel_->cancelButton()->setEnabled(false);
  process_->cancel();
}

void AblationPage::onBenchmarkFinished(const BenchmarkOutcome& outcome) {
  lastBenchmark_ = outcome;
  QString text;
  bool isError = false;
  if (!outcome.resultsPath.isEmpty()) {
    const tb::Status loaded = addResultsFile(outcome.resultsPath);
    if (!loaded) {
      text = tr("The benchmark's results could not be read: %1")
                 .arg(toQString(loaded.error().message));
      isError = true;
    } else {
      text = outcome.cancelled ? tr("Cancelled; the runs that finished were loaded.")
                               : tr("Finished; results loaded from %1.")
                                     .arg(QDir::toNativeSeparators(outcome.resultsPath));
      if (!outcome.message.isEmpty() && !outcome.cancelled) {
        text += QLatin1Char(' ') + outcome.message;
      }
    }
  } else {
    isError = !outcome.cancelled;
    text = outcome.cancelled ? tr("Cancelled; no run had finished.") : outcome.message;
    if (isError && !outcome.stderrTail.isEmpty()) {
      const QStringList lines = outcome.stderrTail.split(QLatin1Char('\n'));
      text += QLatin1Char('\n') +
              lines.mid(std::max<qsizetype>(0, lines.size() - kAblationStderrLinesShown))
                  .join(QLatin1Char('\n'));
    }
  }
  runPanel_->end(text, isError);
  Q_EMIT benchmarkRunningChanged(false);
}

void AblationPage::showMessage(const QString& text, bool isError) {
  message_->setText(text);
  message_->setStyleSheet(isError ? QStringLiteral("color: #b3261e;") : QString());
  message_->setVisible(!text.isEmpty());
}

void AblationPage::restoreState() {
  restoring_ = true;
  const AblationPageState state = settings_.load();
  lastFolder_ = state.lastFolder;
  normalised_->setChecked(state.normalised);
  throughput_->setNormalised(state.normalised);
  runPanel_->setRequest(state.request);
  QStringList missing;
  for (const QString& path : state.engineFiles) {
    if (!sources_->addFile(path, AblationSourceKind::EngineResults)) missing << path;
  }
  for (const QString& path : state.clusterFiles) {
    if (!sources_->addFile(path, AblationSourceKind::ClusterImport)) missing << path;
  }
  // Logs are read again on the worker; they join the list as they come in.
  logImport_->importRequests(state.logs);
  if (!missing.isEmpty()) {
    showMessage(tr("No longer readable, left out: %1").arg(missing.join(QStringLiteral(", "))),
                true);
  }
  restoring_ = false;
}

void AblationPage::saveState() const {
  if (restoring_) return;
  AblationPageState state;
  state.engineFiles = sources_->paths(AblationSourceKind::EngineResults);
  state.clusterFiles = sources_->paths(AblationSourceKind::ClusterImport);
  for (const AblationSource& source : sources_->sources()) {
    if (source.kind == AblationSourceKind::TrainingLog) {
      state.logs.append({source.path, source.label, source.gpusGiven, source.lossPattern});
    }
  }
  // Logs still being read (restored ones, right after start-up) stay in.
  const QStringList listed = sources_->paths(AblationSourceKind::TrainingLog);
  for (const LogImportRequest& request : logImport_->pending()) {
    const QString path = QFileInfo(request.path).absoluteFilePath();
    if (!listed.contains(path)) {
      state.logs.append({path, request.label, request.gpus, request.lossPattern});
    }
  }
  state.lastFolder = lastFolder_;
  state.normalised = normalised_->isChecked();
  state.request = runPanel_->request();
  settings_.save(state);
}

}  // namespace tb::ui
