// The commands print one JSON document on stdout (docs/CLI.md); it is read
// whole when the child ends. A collect before any job completed exits 1
// with the reason on stderr, which the panel shows as it is. Following
// only schedules those same two commands; it reads nothing itself.
#include "ui/ablation/ablation_plan_panel.h"

#include <QCheckBox>
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
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

#include "ui/ablation/log_follow_set.h"
#include "ui/runs/trainbench_binary.h"
#include "ui/widgets/child_process.h"

namespace tb::ui {
namespace {

constexpr const char* kPlanFile = "plan.json";

enum JobColumn { kConfiguration, kState, kScheduler, kStep, kThroughput, kLastRecord, kColumns };

constexpr std::chrono::milliseconds kFollowInterval{5000};

/// A job that has not ended: its files may still grow.
bool isLive(const QString& state) {
  return state == QLatin1String("not-started") || state == QLatin1String("unfinished");
}

int jobsIn(const QJsonArray& jobs, QLatin1String state) {
  int count = 0;
  for (const QJsonValue& job : jobs)
    count += job.toObject().value(QStringLiteral("state")).toString() == state ? 1 : 0;
  return count;
}

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

/// The chain's own short form (Base, AC2, +CompilerOpt, +CkptOpt), so the
/// table fits beside the charts; the full label is its tooltip.
QString chainLabel(const QString& label) {
  const qsizetype plus = label.lastIndexOf(QLatin1Char('+'));
  return plus < 0 ? label : label.mid(plus);
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
      cancel_(new QPushButton(tr("Cancel"))),
      follow_(new QCheckBox(tr("Follow"))),
      followTimer_(new QTimer(this)) {
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
  jobs_->setHorizontalHeaderLabels({tr("Configuration"), tr("State"), tr("Scheduler"), tr("Step"),
                                    tr("Tokens/s"), tr("Updated")});
  jobs_->horizontalHeaderItem(kThroughput)->setToolTip(tr("Tokens/s per GPU so far"));
  jobs_->horizontalHeaderItem(kLastRecord)
      ->setToolTip(tr("How long ago a look last found the job's records grown"));
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
  follow_->setObjectName(QStringLiteral("ablationPlanFollow"));
  follow_->setToolTip(
      tr("Ask for the status every few seconds while jobs run, and collect into the "
         "charts each time one more job has completed; stops once every job has ended"));
  followTimer_->setInterval(kFollowInterval);

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(refresh_);
  buttons->addWidget(collect_);
  buttons->addWidget(cancel_);
  buttons->addStretch(1);
  buttons->addWidget(follow_);
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
  connect(follow_, &QCheckBox::toggled, this, &AblationPlanPanel::setFollowing);
  connect(followTimer_, &QTimer::timeout, this, [this] {
    if (!isBusy()) refresh();
  });
}

void AblationPlanPanel::openFolder(const QString& folder) {
  if (isBusy()) cancel();
  folder_ = folder;
  follow_->setChecked(false);
  progress_.clear();
  collectedJobs_ = 0;
  autoFollow_ = true;
  jobs_->setRowCount(0);
  title_->setText(
      tr("<b>Cluster plan</b> %1").arg(QDir::toNativeSeparators(folder).toHtmlEscaped()));
  setVisible(true);
  const QString collected = QDir(folder).filePath(QStringLiteral("results.json"));
  if (QFileInfo::exists(collected)) Q_EMIT resultsWritten(collected);
  refresh();
}

bool AblationPlanPanel::isBusy() const { return child_->isRunning(); }

bool AblationPlanPanel::isFollowing() const { return follow_->isChecked(); }

void AblationPlanPanel::setFollowInterval(std::chrono::milliseconds interval) {
  followTimer_->setInterval(interval);
}

void AblationPlanPanel::setFollowing(bool on) {
  if (follow_->isChecked() != on) {
    follow_->setChecked(on);  // comes back here through toggled
    return;
  }
  if (!on) {
    followTimer_->stop();
    return;
  }
  followTimer_->start();
  if (!isBusy()) refresh();
}

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
    const QJsonObject document = QJsonDocument::fromJson(output_).object();
    if (task == Task::Collect) {
      collectedJobs_ =
          jobsIn(document.value(QStringLiteral("jobs")).toArray(), QLatin1String("completed"));
      const QString results = document.value(QStringLiteral("results")).toString();
      if (!results.isEmpty()) Q_EMIT resultsWritten(results);
    } else {
      followAfterStatus(document.value(QStringLiteral("jobs")).toArray());
    }
  }
  Q_EMIT taskFinished(ok && !ended.stopRequested);
}

void AblationPlanPanel::showDocument(const QByteArray& json) {
  const QJsonObject document = QJsonDocument::fromJson(json).object();
  const QJsonArray jobs = document.value(QStringLiteral("jobs")).toArray();
  showJobs(jobs);
  const int completed = jobsIn(jobs, QLatin1String("completed"));
  QString text = tr("%1 of %2 jobs completed.").arg(completed).arg(jobs.size());
  if (document.contains(QStringLiteral("report"))) {
    text += QLatin1Char(' ') +
            tr("Collected into %1 and %2; the charts show them.")
                .arg(QFileInfo(document.value(QStringLiteral("results")).toString()).fileName(),
                     QFileInfo(document.value(QStringLiteral("report")).toString()).fileName());
  }
  setBusy(false, text);
}

// Whether to go on following, and whether the charts are behind the jobs.
// A plan is followed by default when it is under way: a job running, or
// some ended and some still to start (between two jobs of submit.sh).
void AblationPlanPanel::followAfterStatus(const QJsonArray& jobs) {
  const int running = jobsIn(jobs, QLatin1String("unfinished"));
  const int pending = jobsIn(jobs, QLatin1String("not-started"));
  const int completed = jobsIn(jobs, QLatin1String("completed"));
  if (std::exchange(autoFollow_, false) && (running > 0 || (pending > 0 && pending < jobs.size())))
    setFollowing(true);
  if (!isFollowing()) return;
  // Started once this child's finished signal has been handled.
  if (completed > collectedJobs_) QTimer::singleShot(0, this, &AblationPlanPanel::collect);
  if (running == 0 && pending == 0) {
    setFollowing(false);
    status_->setText(status_->text() + QLatin1Char(' ') +
                     tr("Every job has ended; following stopped."));
  }
}

void AblationPlanPanel::showJobs(const QJsonArray& jobs) {
  jobs_->setRowCount(static_cast<int>(jobs.size()));
  const QDateTime now = QDateTime::currentDateTimeUtc();
  // The repeat is named only where the plan has more than one.
  bool repeats = false;
  for (const QJsonValue& job : jobs)
    repeats = repeats || job.toObject().value(QStringLiteral("repeat")).toInt() > 1;
  for (int row = 0; row < jobs.size(); ++row) {
    const QJsonObject job = jobs.at(row).toObject();
    const QString state = job.value(QStringLiteral("state")).toString();
    const QString scheduler = job.value(QStringLiteral("scheduler_state")).toString();
    const QString label = job.value(QStringLiteral("label")).toString();
    const int repeat = job.value(QStringLiteral("repeat")).toInt();
    jobs_->setItem(
        row, kConfiguration,
        item(repeats ? tr("%1 #%2").arg(chainLabel(label)).arg(repeat) : chainLabel(label)));
    QTableWidgetItem* stateItem = item(state);
    stateItem->setForeground(stateColor(state));
    jobs_->setItem(row, kState, stateItem);
    jobs_->setItem(row, kScheduler, item(scheduler.isEmpty() ? QStringLiteral("-") : scheduler));
    jobs_->setItem(row, kStep, item(stepText(job)));
    const QString reason = job.value(QStringLiteral("reason")).toString();
    const QString why = reason.isEmpty() ? state : state + QStringLiteral(": ") + reason;
    for (int column = 0; column <= kStep; ++column)
      jobs_->item(row, column)->setToolTip(label + QStringLiteral(" \u00b7 ") + why);
    showProgress(row, job, now);
  }
  jobs_->resizeColumnsToContents();
}

// The throughput so far, and how long since a look found the job grown:
// what tells a stalled job from a slow one.
void AblationPlanPanel::showProgress(int row, const QJsonObject& job, const QDateTime& now) {
  const QJsonValue tokens = job.value(QStringLiteral("tokens_per_s_per_gpu"));
  jobs_->setItem(
      row, kThroughput,
      item(tokens.isDouble() ? QString::number(tokens.toDouble(), 'f', 0) : QStringLiteral("-")));
  JobProgress& seen = progress_[job.value(QStringLiteral("order")).toInt()];
  const QJsonValue last = job.value(QStringLiteral("last_step"));
  const std::optional<qint64> lastStep =
      last.isNull() ? std::nullopt : std::optional<qint64>(last.toInteger());
  const qint64 records = job.value(QStringLiteral("records")).toInteger();
  if (!seen.firstSeenAt.isValid()) {
    seen.firstSeenAt = now;
  } else if (lastStep != seen.lastStep || records != seen.records) {
    seen.lastRecordAt = now;
  }
  seen.lastStep = lastStep;
  seen.records = records;

  const bool live = isLive(job.value(QStringLiteral("state")).toString());
  QString text = QStringLiteral("-");
  QString tip = tr("Seen by this window's looks at the job's files.");
  QDateTime quietSince = seen.lastRecordAt.isValid() ? seen.lastRecordAt : seen.firstSeenAt;
  if (live && seen.lastRecordAt.isValid()) {
    text = sinceText(seen.lastRecordAt, now);
  } else if (live && lastStep) {
    text = tr("none new since %1").arg(sinceText(seen.firstSeenAt, now));
  }
  QTableWidgetItem* cell = item(text);
  const bool stalled =
      live && lastStep && isFollowing() && quietSince.secsTo(now) >= qint64{kStalledAfter.count()};
  if (stalled) {
    QFont bold = cell->font();
    bold.setBold(true);
    cell->setFont(bold);
    tip = tr("No new record for %1: the job may be stalled.").arg(sinceText(quietSince, now));
  }
  cell->setToolTip(tip);
  jobs_->setItem(row, kLastRecord, cell);
}

void AblationPlanPanel::setBusy(bool busy, const QString& status) {
  busy_->setVisible(busy);
  refresh_->setEnabled(!busy);
  collect_->setEnabled(!busy);
  cancel_->setEnabled(busy);
  status_->setText(status);
}

}  // namespace tb::ui
