// The commands print one JSON document on stdout (docs/CLI.md); it is read
// whole when the child ends. A collect before any job completed exits 1
// with the reason on stderr, which the panel shows as it is.
#include "ui/ablation/ablation_plan_panel.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/runs/trainbench_binary.h"
#include "ui/widgets/child_process.h"

namespace tb::ui {
namespace {

constexpr const char* kPlanFile = "plan.json";

enum JobColumn { kConfiguration, kRepeat, kState, kScheduler, kStep, kColumns };

QString stepText(const QJsonObject& job) {
  const QJsonValue last = job.value(QStringLiteral("last_step"));
  const QJsonValue planned = job.value(QStringLiteral("planned_steps"));
  if (last.isNull() && planned.isNull()) return QStringLiteral("-");
  const QString done = last.isNull() ? QStringLiteral("-") : QString::number(last.toInteger());
  return planned.isNull() ? done : done + QLatin1Char('/') + QString::number(planned.toInteger());
}

// Ended badly in red, still going in blue: what to look at first.
QColor stateColor(const QString& state) {
  if (state == QLatin1String("completed")) return QColor(0x1b, 0x6e, 0x20);
  if (state == QLatin1String("unfinished")) return QColor(0x1a, 0x5f, 0xb4);
  if (state == QLatin1String("not-started")) return QColor(0x5f, 0x63, 0x68);
  return QColor(0xb3, 0x26, 0x1e);
}

QTableWidgetItem* item(const QString& text) {
  auto* cell = new QTableWidgetItem(text);
  cell->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  return cell;
}

}  // namespace

QString planFolderOf(const QString& path) {
  const QFileInfo info(path);
  if (info.isDir()) {
    return QFileInfo::exists(QDir(path).filePath(QLatin1String(kPlanFile)))
               ? info.absoluteFilePath()
               : QString();
  }
  return info.fileName() == QLatin1String(kPlanFile) && info.isFile() ? info.absolutePath()
                                                                      : QString();
}

AblationPlanPanel::AblationPlanPanel(QWidget* parent)
    : QWidget(parent),
      child_(new ChildProcess(this)),
      title_(new QLabel),
      status_(new QLabel),
      busy_(new QProgressBar),
      jobs_(new QTableWidget(0, kColumns)),
      refresh_(new QPushButton(tr("Refresh"))),
      collect_(new QPushButton(tr("Collect"))),
      cancel_(new QPushButton(tr("Cancel"))) {
  setObjectName(QStringLiteral("ablationPlanPanel"));
  title_->setObjectName(QStringLiteral("ablationPlanTitle"));
  title_->setWordWrap(true);
  status_->setObjectName(QStringLiteral("ablationPlanStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  busy_->setRange(0, 0);  // the commands say nothing until they end
  busy_->setMaximumHeight(6);
  busy_->setTextVisible(false);
  busy_->setVisible(false);
  jobs_->setObjectName(QStringLiteral("ablationPlanJobs"));
  jobs_->setHorizontalHeaderLabels(
      {tr("Configuration"), tr("Rep."), tr("State"), tr("Scheduler"), tr("Step")});
  // The rows are in submission order; the header numbers them from 1.
  jobs_->horizontalHeader()->setStretchLastSection(true);
  jobs_->setSelectionBehavior(QAbstractItemView::SelectRows);
  jobs_->setMinimumHeight(150);
  refresh_->setObjectName(QStringLiteral("ablationPlanRefresh"));
  refresh_->setToolTip(
      tr("trainbench ablation status: each job by its files and by the scheduler"));
  collect_->setObjectName(QStringLiteral("ablationPlanCollect"));
  collect_->setToolTip(
      tr("trainbench ablation collect: the completed jobs into results.json "
         "and report.html, shown here"));
  cancel_->setObjectName(QStringLiteral("ablationPlanCancel"));
  cancel_->setEnabled(false);

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(refresh_);
  buttons->addWidget(collect_);
  buttons->addWidget(cancel_);
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(0, 0, 0, 0);
  column->addWidget(title_);
  column->addWidget(jobs_, 1);
  column->addLayout(buttons);
  column->addWidget(busy_);
  column->addWidget(status_);
  setVisible(false);

  connect(refresh_, &QPushButton::clicked, this, &AblationPlanPanel::refresh);
  connect(collect_, &QPushButton::clicked, this, &AblationPlanPanel::collect);
  connect(cancel_, &QPushButton::clicked, this, &AblationPlanPanel::cancel);
  connect(child_, &ChildProcess::stdoutLine, this, [this](const QByteArray& line) {
    output_ += line;
    output_ += '\n';
  });
  connect(child_, &ChildProcess::finished, this, &AblationPlanPanel::onFinished);
}

void AblationPlanPanel::openFolder(const QString& folder) {
  if (isBusy()) cancel();
  folder_ = folder;
  jobs_->setRowCount(0);
  title_->setText(
      tr("<b>Cluster plan</b> %1").arg(QDir::toNativeSeparators(folder).toHtmlEscaped()));
  setVisible(true);
  const QString collected = QDir(folder).filePath(QStringLiteral("results.json"));
  if (QFileInfo::exists(collected)) Q_EMIT resultsWritten(collected);
  refresh();
}

bool AblationPlanPanel::isBusy() const { return child_->isRunning(); }

void AblationPlanPanel::refresh() { start(Task::Status, QStringLiteral("status")); }

void AblationPlanPanel::collect() { start(Task::Collect, QStringLiteral("collect")); }

void AblationPlanPanel::cancel() {
  if (!isBusy()) return;
  status_->setText(tr("Cancelling\u2026"));
  child_->stop();
}

void AblationPlanPanel::start(Task task, const QString& subcommand) {
  if (folder_.isEmpty() || isBusy()) return;
  task_ = task;
  output_.clear();
  if (!child_->start(trainbenchBinary(),
                     {QStringLiteral("ablation"), subcommand, folder_, QStringLiteral("--json")})) {
    return;
  }
  setBusy(true, task == Task::Status ? tr("Asking the scheduler and reading the jobs' files\u2026")
                                     : tr("Collecting the completed jobs\u2026"));
}

void AblationPlanPanel::onFinished(const ChildExit& ended) {
  const Task task = std::exchange(task_, Task::None);
  const bool ok = !ended.failedToStart && !ended.crashed && ended.exitCode == 0;
  if (ended.stopRequested) {
    setBusy(false, tr("Cancelled."));
  } else if (!ok) {
    const QString why = ended.failedToStart ? ended.errorString : ended.stderrTail;
    setBusy(false, why.isEmpty() ? tr("trainbench ended with exit code %1").arg(ended.exitCode)
                                 : why.split(QLatin1Char('\n')).last());
  } else {
    showDocument(output_);
    if (task == Task::Collect) {
      const QJsonObject document = QJsonDocument::fromJson(output_).object();
      const QString results = document.value(QStringLiteral("results")).toString();
      if (!results.isEmpty()) Q_EMIT resultsWritten(results);
    }
  }
  Q_EMIT taskFinished(ok && !ended.stopRequested);
}

void AblationPlanPanel::showDocument(const QByteArray& json) {
  const QJsonObject document = QJsonDocument::fromJson(json).object();
  const QJsonArray jobs = document.value(QStringLiteral("jobs")).toArray();
  showJobs(jobs);
  int completed = 0;
  for (const QJsonValue& job : jobs) {
    if (job.toObject().value(QStringLiteral("state")).toString() == QLatin1String("completed")) {
      ++completed;
    }
  }
  QString text = tr("%1 of %2 jobs completed.").arg(completed).arg(jobs.size());
  if (document.contains(QStringLiteral("report"))) {
    text += QLatin1Char(' ') +
            tr("Collected into %1 and %2; the charts show them.")
                .arg(QFileInfo(document.value(QStringLiteral("results")).toString()).fileName(),
                     QFileInfo(document.value(QStringLiteral("report")).toString()).fileName());
  }
  setBusy(false, text);
}

void AblationPlanPanel::showJobs(const QJsonArray& jobs) {
  jobs_->setRowCount(static_cast<int>(jobs.size()));
  for (int row = 0; row < jobs.size(); ++row) {
    const QJsonObject job = jobs.at(row).toObject();
    const QString state = job.value(QStringLiteral("state")).toString();
    const QString scheduler = job.value(QStringLiteral("scheduler_state")).toString();
    jobs_->setItem(row, kConfiguration, item(job.value(QStringLiteral("label")).toString()));
    jobs_->setItem(row, kRepeat,
                   item(QString::number(job.value(QStringLiteral("repeat")).toInt())));
    QTableWidgetItem* stateItem = item(state);
    stateItem->setForeground(stateColor(state));
    jobs_->setItem(row, kState, stateItem);
    jobs_->setItem(row, kScheduler, item(scheduler.isEmpty() ? QStringLiteral("-") : scheduler));
    jobs_->setItem(row, kStep, item(stepText(job)));
    const QString reason = job.value(QStringLiteral("reason")).toString();
    for (int column = 0; column < kColumns; ++column) {
      jobs_->item(row, column)
          ->setToolTip(reason.isEmpty() ? state : state + QStringLiteral(": ") + reason);
    }
  }
  jobs_->resizeColumnsToContents();
}

void AblationPlanPanel::setBusy(bool busy, const QString& status) {
  busy_->setVisible(busy);
  refresh_->setEnabled(!busy);
  collect_->setEnabled(!busy);
  cancel_->setEnabled(busy);
  status_->setText(status);
}

}  // namespace tb::ui
