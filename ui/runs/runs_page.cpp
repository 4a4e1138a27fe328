// Step events are logged sparsely (about twenty lines per run) while every
// one feeds the charts: the log is for reading, the charts for the trend.
#include "ui/runs/runs_page.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "tb/memory/memory_options.hpp"
#include "ui/data_size.h"
#include "ui/qt_text.h"
#include "ui/runs/run_charts.h"
#include "ui/runs/run_form.h"
#include "ui/runs/run_history_panel.h"
#include "ui/runs/trainbench_binary.h"
#include "ui/studio_settings.h"

namespace tb::ui {
namespace {

using tb::runs::EventKind;
using tb::runs::RunState;

constexpr int kStderrLinesShown = 6;

}  // namespace

RunsPage::RunsPage(const StudioSettings& settings, QWidget* parent)
    : QWidget(parent), settings_(settings.access()), process_(new RunProcess(this)) {
  setObjectName(QStringLiteral("runsPage"));
  process_->setObjectName(QStringLiteral("runProcess"));
  tabs_ = new QTabWidget;
  tabs_->setObjectName(QStringLiteral("runsTabs"));
  tabs_->addTab(buildLiveTab(), tr("Live run"));
  history_ = new RunHistoryPanel;
  history_->setObjectName(QStringLiteral("runHistory"));
  tabs_->addTab(history_, tr("Past runs"));

  auto* layout = new QHBoxLayout(this);
  layout->addWidget(buildControls());
  layout->addWidget(tabs_, 1);

  connect(process_, &RunProcess::eventReceived, this, &RunsPage::onEvent);
  connect(process_, &RunProcess::logLine, this, &RunsPage::appendLog);
  connect(process_, &RunProcess::finished, this, &RunsPage::onFinished);
  form_->setChoices(settings_.load());
  connect(form_, &RunForm::changed, this, &RunsPage::updateButtons);
  connect(form_, &RunForm::changed, this, [this] { settings_.save(form_->choices()); });
  updateButtons();
  history_->refresh();
}

QWidget* RunsPage::buildControls() {
  form_ = new RunForm;
  form_->setObjectName(QStringLiteral("runForm"));
  start_ = new QPushButton(tr("Start"));
  start_->setObjectName(QStringLiteral("runStart"));
  start_->setDefault(true);
  stop_ = new QPushButton(tr("Stop"));
  stop_->setObjectName(QStringLiteral("runStop"));
  stop_->setToolTip(
      tr("Asks the engine to stop after the current step; the run keeps its "
         "events and is marked interrupted."));
  progress_ = new QProgressBar;
  progress_->setObjectName(QStringLiteral("runProgress"));
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setFormat(tr("step %v of %m"));
  progress_->setTextVisible(false);  // "step 0 of 1" before any run says nothing
  status_ = new QLabel(tr("Ready."));
  status_->setObjectName(QStringLiteral("runStatus"));
  status_->setWordWrap(true);
  outcome_ = new QLabel;
  outcome_->setObjectName(QStringLiteral("runOutcome"));
  outcome_->setWordWrap(true);
  outcome_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  outcome_->setVisible(false);

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(start_);
  buttons->addWidget(stop_);
  auto* panel = new QWidget;
  auto* column = new QVBoxLayout(panel);
  column->setContentsMargins(0, 0, 0, 0);
  column->addWidget(form_);
  column->addLayout(buttons);
  column->addWidget(progress_);
  column->addWidget(status_);
  column->addWidget(outcome_);
  column->addStretch(1);
  auto* scroll = new QScrollArea;
  scroll->setWidget(panel);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setMinimumWidth(300);
  scroll->setMaximumWidth(380);
  // The form fits the column's width; it scrolls vertically only.
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

  connect(start_, &QPushButton::clicked, this, &RunsPage::startRun);
  connect(stop_, &QPushButton::clicked, this, &RunsPage::stopRun);
  return scroll;
}

QWidget* RunsPage::buildLiveTab() {
  live_ = new RunCharts;
  live_->setObjectName(QStringLiteral("liveCharts"));
  log_ = new QPlainTextEdit;
  log_->setObjectName(QStringLiteral("runLog"));
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(5000);
  log_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  log_->setPlaceholderText(tr("The engine's messages and a summary of its events appear here."));
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->setObjectName(QStringLiteral("runsLiveSplitter"));
  splitter->addWidget(live_);
  splitter->addWidget(log_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  return splitter;
}

bool RunsPage::isRunning() const { return process_->isRunning(); }

void RunsPage::startRun() {
  if (isRunning()) return;
  auto arguments = form_->arguments();
  if (!arguments) {
    status_->setText(tr("Cannot start: %1").arg(toQString(arguments.error().message)));
    return;
  }
  *arguments << QStringLiteral("--events") << QStringLiteral("-");
  const QString program = trainbenchBinary();
  totalSteps_ = form_->steps();
  lastLoggedStep_ = 0;
  lastOutcome_.reset();
  live_->clear();
  live_->setBudget(form_->memoryBudgetBytes());
  progress_->setRange(0, static_cast<int>(totalSteps_));
  progress_->setValue(0);
  progress_->setTextVisible(true);
  outcome_->setVisible(false);
  status_->setText(tr("Starting…"));
  tabs_->setCurrentIndex(0);
  appendLog(QStringLiteral("$ ") + program + QLatin1Char(' ') + arguments->join(QLatin1Char(' ')));
  process_->start(program, *arguments);
  updateButtons();
  // A program that cannot start may have been reported (and finished) already.
  if (isRunning()) Q_EMIT runningChanged(true);
}

void RunsPage::stopRun() {
  if (!isRunning()) return;
  status_->setText(tr("Stopping after the current step…"));
  process_->stop();
  stop_->setEnabled(false);
}

bool RunsPage::applyRecomputePolicy(const QString& policy, const QString& runtime) {
  // A framework's plan (torchtitan's op, every:N) is for its jobs, not for
  // the engine: the form keeps what it had rather than take a policy the run
  // would refuse.
  if (auto engine = tb::memory::parseEngineRecompute(toStdString(policy)); !engine) {
    status_->setText(tr("Recompute %1 is not for the engine: %2")
                         .arg(policy, toQString(engine.error().message)));
    return false;
  }
  form_->setRecomputePolicy(policy);
  if (runtime.isEmpty()) {
    status_->setText(tr("Recompute set to %1 from the Memory page.").arg(policy));
    return true;
  }
  form_->setRuntime(runtime);
  status_->setText(
      tr("Recompute set to %1 for the %2 runtime from the Memory page.").arg(policy, runtime));
  return true;
}

void RunsPage::onEvent(const tb::runs::RunEvent& event) {
  const QLocale locale;
  switch (event.kind) {
    case EventKind::Start:
      if (event.totalSteps > 0) totalSteps_ = event.totalSteps;
      progress_->setRange(0, static_cast<int>(totalSteps_));
      live_->setBudget(event.memoryBudget);
      appendLog(tr("started %1: %2 parameters, recompute %3, in %4")
                    .arg(toQString(event.model), locale.toString(event.params),
                         toQString(event.recompute), toQString(event.runDir)));
      break;
    case EventKind::Step: {
      const tb::runs::StepSample& sample = event.sample;
      live_->appendSample(sample);
      progress_->setValue(static_cast<int>(std::min(sample.step, totalSteps_)));
      status_->setText(tr("Step %1 of %2 · loss %3 · %4 tokens/s")
                           .arg(locale.toString(sample.step), locale.toString(totalSteps_),
                                locale.toString(sample.loss, 'f', 4),
                                locale.toString(sample.tokensPerSecond, 'f', 0)));
      const std::int64_t every = std::max<std::int64_t>(1, totalSteps_ / 20);
      if (sample.step == 1 || sample.step - lastLoggedStep_ >= every) {
        lastLoggedStep_ = sample.step;
        appendLog(tr("step %1: loss %2, %3 tokens/s, %4 live")
                      .arg(locale.toString(sample.step), locale.toString(sample.loss, 'f', 4),
                           locale.toString(sample.tokensPerSecond, 'f', 0),
                           formatDataSize(static_cast<double>(sample.liveBytes))));
      }
      break;
    }
    case EventKind::RankStep:
      live_->setRankMemory(event.rank, event.sample.liveBytes, event.sample.peakBytes);
      break;
    case EventKind::Error: appendLog(tr("error: %1").arg(toQString(event.message))); break;
    case EventKind::End:
      if (event.summary) {
        appendLog(tr("ended %1 after %2 steps, median %3 tokens/s")
                      .arg(toQString(tb::runs::toString(event.summary->state)),
                           locale.toString(event.summary->steps),
                           locale.toString(event.summary->tokensPerSecond, 'f', 0)));
        // A data-parallel run's curves are the whole group's (rank 0 reports
        // them); its memory is each rank's own.
        for (const tb::runs::RankOutcome& rank : event.summary->ranks) {
          appendLog(tr("  rank %1 of %2: %3, peak %4")
                        .arg(locale.toString(rank.rank), locale.toString(event.summary->worldSize),
                             toQString(tb::runs::toString(rank.state)),
                             formatDataSize(static_cast<double>(rank.peakBytes))));
        }
      }
      break;
    case EventKind::Other: break;
  }
}

void RunsPage::onFinished(const RunOutcome& outcome) {
  lastOutcome_ = outcome;
  const QString state = toQString(tb::runs::toString(outcome.state));
  const bool failed = outcome.state == RunState::Failed || outcome.state == RunState::Oom;
  status_->setText(outcome.state == RunState::Completed ? tr("Completed.")
                                                        : tr("Run %1.").arg(state));
  QString text = outcome.message.toHtmlEscaped();
  if (failed && !outcome.stderrTail.isEmpty()) {
    const QStringList lines = outcome.stderrTail.split(QLatin1Char('\n'));
    const QStringList tail = lines.mid(std::max<qsizetype>(0, lines.size() - kStderrLinesShown));
    text += QStringLiteral("<pre>") + tail.join(QLatin1Char('\n')).toHtmlEscaped() +
            QStringLiteral("</pre>");
  }
  outcome_->setText(text);
  outcome_->setStyleSheet(failed ? QStringLiteral("color: palette(highlighted-text); "
                                                  "background: #b3261e; padding: 4px;")
                                 : QString());
  outcome_->setVisible(!text.isEmpty());
  appendLog(
      tr("run %1 (exit code %2)%3")
          .arg(state)
          .arg(outcome.exitCode)
          .arg(outcome.message.isEmpty() ? QString() : QStringLiteral(": ") + outcome.message));
  updateButtons();
  history_->refresh(outcome.runDir);
  Q_EMIT runningChanged(false);
  Q_EMIT runFinished();
}

void RunsPage::updateButtons() {
  const bool running = isRunning();
  start_->setEnabled(!running && static_cast<bool>(form_->arguments()));
  stop_->setEnabled(running);
  form_->setEnabled(!running);
}

void RunsPage::appendLog(const QString& line) { log_->appendPlainText(line); }

}  // namespace tb::ui
