// Everything shown here comes from the benchmark's events (docs/CLI.md);
// the text the command prints for people goes to the log and nowhere else,
// so rewording it cannot move a bar. The schedule runs one child at a time,
// so a run's end at index k means k + 1 runs have ended.
#include "ui/ablation/ablation_run_panel.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStringList>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <cstddef>

#include "tb/bench/ablation.hpp"
#include "tb/model/model_config.hpp"
#include "ui/qt_text.h"

namespace tb::ui {
namespace {

using tb::runs::BenchmarkEventKind;
using tb::runs::BenchmarkRunRef;
using tb::runs::RunState;

// More repeats than this are a malformed event, not a table row to grow.
constexpr std::int64_t kMaxRepeats = 10'000;

/// The row of `label`; none for a configuration this panel has no row for.
std::optional<std::size_t> rowOf(const std::string& label) {
  const std::optional<tb::bench::AblationStep> step = tb::bench::parseAblationLabel(label);
  if (!step) return std::nullopt;
  return static_cast<std::size_t>(tb::bench::chainIndex(*step));
}

int toInt(std::int64_t value) {
  return static_cast<int>(std::clamp<std::int64_t>(value, 0, INT_MAX));
}

QString stateName(RunState state) { return toQString(tb::runs::toString(state)); }

QString runName(const BenchmarkRunRef& run) {
  return AblationRunPanel::tr("%1, repeat %2 (run %3 of %4)")
      .arg(toQString(run.label))
      .arg(run.repeat + 1)
      .arg(run.index + 1)
      .arg(run.total);
}

}  // namespace

AblationRunPanel::AblationRunPanel(QWidget* parent)
    : QGroupBox(tr("Run a new ablation"), parent),
      model_(new QComboBox),
      repeats_(new QSpinBox),
      steps_(new QSpinBox),
      run_(new QPushButton(tr("Run ablation"))),
      cancel_(new QPushButton(tr("Cancel"))),
      progress_(new QProgressBar),
      stepProgress_(new QProgressBar),
      table_(new QTableWidget(4, 2)),
      status_(new QLabel),
      log_(new QPlainTextEdit) {
  setObjectName(QStringLiteral("ablationRunPanel"));
  model_->setObjectName(QStringLiteral("ablationModel"));
  model_->addItems(toQStringList(tb::model::presetNames()));
  model_->setToolTip(tr("The model preset every configuration trains"));
  repeats_->setObjectName(QStringLiteral("ablationRepeats"));
  repeats_->setRange(1, 20);
  repeats_->setValue(3);
  repeats_->setToolTip(
      tr("Runs per configuration, interleaved Base, AC2, +CompilerOpt, "
         "+CkptOpt, then again, so drift of the machine hits all alike"));
  steps_->setObjectName(QStringLiteral("ablationSteps"));
  steps_->setRange(2, 100000);
  steps_->setValue(20);
  steps_->setToolTip(
      tr("Training steps per run; the first ones are warm-up and are not "
         "measured"));
  run_->setObjectName(QStringLiteral("ablationRun"));
  run_->setToolTip(
      tr("Runs `trainbench benchmark --ablation`: each configuration in a fresh "
         "child process; the results are loaded when it ends"));
  cancel_->setObjectName(QStringLiteral("ablationCancel"));
  cancel_->setToolTip(tr("Stops the current run; runs that finished are kept and loaded"));
  cancel_->setEnabled(false);
  progress_->setObjectName(QStringLiteral("ablationProgress"));
  // Empty, a bar looks like a text field: it says what it will show.
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setFormat(tr("No ablation has run yet: the runs are counted here"));
  progress_->setToolTip(tr("The benchmark's runs, every configuration and repeat"));
  stepProgress_->setObjectName(QStringLiteral("ablationStepProgress"));
  stepProgress_->setToolTip(tr("The current run's training steps, as the run reports them"));
  resetStepBar();

  table_->setObjectName(QStringLiteral("ablationRunTable"));
  table_->setHorizontalHeaderLabels({tr("Configuration"), tr("Runs")});
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  table_->setFocusPolicy(Qt::NoFocus);
  for (int row = 0; row < 4; ++row) {
    const auto step = tb::bench::kAblationSteps[static_cast<std::size_t>(row)];
    table_->setItem(row, 0, new QTableWidgetItem(toQString(tb::bench::label(step))));
    table_->setItem(row, 1, new QTableWidgetItem);
  }
  const int rowHeight = table_->verticalHeader()->defaultSectionSize();
  table_->setFixedHeight(table_->horizontalHeader()->sizeHint().height() + 4 * rowHeight + 4);

  status_->setObjectName(QStringLiteral("ablationRunStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  log_->setObjectName(QStringLiteral("ablationRunLog"));
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(2000);
  log_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  log_->setPlaceholderText(tr("The benchmark's messages appear here."));
  log_->setMinimumHeight(70);

  auto* form = new QFormLayout;
  form->addRow(tr("Model"), model_);
  form->addRow(tr("Repeats"), repeats_);
  form->addRow(tr("Steps per run"), steps_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_);
  buttons->addWidget(cancel_);
  auto* column = new QVBoxLayout(this);
  column->addLayout(form);
  column->addLayout(buttons);
  column->addWidget(progress_);
  column->addWidget(stepProgress_);
  column->addWidget(table_);
  column->addWidget(status_);
  column->addWidget(log_, 1);

  connect(run_, &QPushButton::clicked, this, &AblationRunPanel::runRequested);
  connect(cancel_, &QPushButton::clicked, this, &AblationRunPanel::cancelRequested);
  showCounts();
}

BenchmarkRequest AblationRunPanel::request() const {
  BenchmarkRequest request;
  request.model = model_->currentText();
  request.repeats = repeats_->value();
  request.steps = steps_->value();
  return request;
}

void AblationRunPanel::setRequest(const BenchmarkRequest& request) {
  const int index = model_->findText(request.model);
  if (index >= 0) model_->setCurrentIndex(index);
  repeats_->setValue(request.repeats);
  steps_->setValue(request.steps);
}

void AblationRunPanel::begin(int repeats) {
  const int planned = std::max(1, repeats);
  for (Configuration& configuration : configurations_) {
    configuration.planned = planned;
    configuration.ended.clear();
  }
  runningIndex_ = -1;
  progress_->setRange(0, 4 * planned);
  progress_->setValue(0);
  progress_->setFormat(tr("run %v of %m"));
  resetStepBar();
  log_->clear();
  status_->setStyleSheet(QString());
  status_->setText(tr("Starting the benchmark\u2026"));
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  setFormEnabled(false);
  showCounts();
}

void AblationRunPanel::applyProgress(const tb::runs::BenchmarkEvent& event) {
  switch (event.kind) {
    case BenchmarkEventKind::Plan: applyPlan(event.plan); break;
    case BenchmarkEventKind::RunStart: applyRunStart(event); break;
    case BenchmarkEventKind::RunStep: applyRunStep(event); break;
    case BenchmarkEventKind::RunEnd: applyRunEnd(event); break;
    case BenchmarkEventKind::Summary: applySummary(event.summary); break;
    case BenchmarkEventKind::Other: return;  // a newer writer's event says nothing to this panel
  }
  showCounts();
}

void AblationRunPanel::applyPlan(const tb::runs::BenchmarkPlan& plan) {
  if (plan.runs.empty()) return;
  for (Configuration& configuration : configurations_) {
    configuration.planned = 0;
    configuration.ended.clear();
  }
  for (const BenchmarkRunRef& run : plan.runs) {
    if (const auto row = rowOf(run.label)) ++configurations_[*row].planned;
  }
  runningIndex_ = -1;
  progress_->setRange(0, toInt(static_cast<std::int64_t>(plan.runs.size())));
  progress_->setValue(0);
  status_->setText(tr("%1 runs of %2 planned, %3 steps each.")
                       .arg(plan.runs.size())
                       .arg(toQString(plan.model))
                       .arg(plan.steps));
}

void AblationRunPanel::applyRunStart(const tb::runs::BenchmarkEvent& event) {
  followTotal(event.run.total);
  const auto row = rowOf(event.run.label);
  runningIndex_ = row ? static_cast<int>(*row) : -1;
  stepProgress_->setRange(0, std::max(1, toInt(event.steps)));
  stepProgress_->setValue(0);
  stepProgress_->setFormat(tr("step %v of %m"));
  status_->setText(tr("Running %1\u2026").arg(runName(event.run)));
}

void AblationRunPanel::applyRunStep(const tb::runs::BenchmarkEvent& event) {
  followTotal(event.run.total);
  // A run whose start was missed is still the run going on.
  const auto row = rowOf(event.run.label);
  runningIndex_ = row ? static_cast<int>(*row) : -1;
  if (event.steps > 0 && toInt(event.steps) != stepProgress_->maximum()) {
    stepProgress_->setMaximum(toInt(event.steps));
  }
  stepProgress_->setFormat(tr("step %v of %m"));
  stepProgress_->setValue(std::min(toInt(event.step), stepProgress_->maximum()));
}

void AblationRunPanel::applyRunEnd(const tb::runs::BenchmarkEvent& event) {
  const BenchmarkRunRef& run = event.run;
  const RunState state = event.end.state;
  followTotal(run.total);
  if (const auto row = rowOf(run.label); row && run.repeat >= 0 && run.repeat < kMaxRepeats) {
    auto& ended = configurations_[*row].ended;
    const auto repeat = static_cast<std::size_t>(run.repeat);
    if (ended.size() <= repeat) ended.resize(repeat + 1);
    ended[repeat] = state;
  }
  runningIndex_ = -1;
  progress_->setValue(
      std::min(std::max(progress_->value(), toInt(run.index + 1)), progress_->maximum()));
  if (state == RunState::Completed) {
    stepProgress_->setValue(stepProgress_->maximum());
    status_->setText(tr("Finished %1.").arg(runName(run)));
  } else if (event.end.message.empty()) {
    status_->setText(tr("%1 ended %2.").arg(runName(run), stateName(state)));
  } else {
    status_->setText(
        tr("%1 ended %2: %3").arg(runName(run), stateName(state), toQString(event.end.message)));
  }
}

void AblationRunPanel::applySummary(const tb::runs::BenchmarkSummary& summary) {
  runningIndex_ = -1;
  resetStepBar();
  if (summary.stopped) {
    status_->setText(
        tr("Stopped after %1 of %2 runs.").arg(summary.finishedRuns).arg(progress_->maximum()));
  } else if (summary.failedRuns > 0) {
    status_->setText(tr("All runs ended; %1 did not complete.").arg(summary.failedRuns));
  } else {
    status_->setText(tr("All %1 runs completed.").arg(summary.finishedRuns));
  }
}

void AblationRunPanel::followTotal(std::int64_t total) {
  if (total > 0 && toInt(total) != progress_->maximum()) progress_->setMaximum(toInt(total));
}

QString AblationRunPanel::idleStepText() {
  return tr("No run in progress: its training steps show here");
}

void AblationRunPanel::resetStepBar() {
  stepProgress_->setRange(0, 1);
  stepProgress_->setValue(0);
  stepProgress_->setFormat(idleStepText());
}

void AblationRunPanel::end(const QString& text, bool isError) {
  runningIndex_ = -1;
  resetStepBar();
  run_->setEnabled(true);
  cancel_->setEnabled(false);
  setFormEnabled(true);
  setStatus(text);
  status_->setStyleSheet(isError ? QStringLiteral("color: #b3261e;") : QString());
  showCounts();
}

void AblationRunPanel::appendLog(const QString& line) { log_->appendPlainText(line); }

void AblationRunPanel::setStatus(const QString& text) { status_->setText(text); }

int AblationRunPanel::finishedRuns(int index) const {
  if (index < 0 || index >= 4) return 0;
  const auto& ended = configurations_[static_cast<std::size_t>(index)].ended;
  return static_cast<int>(std::count_if(ended.begin(), ended.end(),
                                        [](const auto& state) { return state.has_value(); }));
}

void AblationRunPanel::setFormEnabled(bool enabled) {
  for (QWidget* field : {static_cast<QWidget*>(model_), static_cast<QWidget*>(repeats_),
                         static_cast<QWidget*>(steps_)}) {
    field->setEnabled(enabled);
  }
}

void AblationRunPanel::showCounts() {
  for (int row = 0; row < 4; ++row) {
    const Configuration& configuration = configurations_[static_cast<std::size_t>(row)];
    const int ended = finishedRuns(row);
    if (configuration.planned == 0 && ended == 0) {
      // Nothing planned yet: a count would claim a benchmark that never began.
      table_->item(row, 1)->setText(QStringLiteral("\u2014"));
      table_->item(row, 1)->setToolTip(QString());
      continue;
    }
    QString text = tr("%1 of %2").arg(ended).arg(std::max(configuration.planned, ended));
    if (row == runningIndex_) text += tr(" \u00b7 running");
    // A completed run is what is expected; the others are said, with how many.
    for (const RunState state : {RunState::Interrupted, RunState::Oom, RunState::Failed}) {
      const auto count = std::count(configuration.ended.begin(), configuration.ended.end(),
                                    std::optional<RunState>(state));
      if (count == 0) continue;
      text += QStringLiteral(" \u00b7 ") +
              (count == 1 ? stateName(state) : tr("%1 %2").arg(count).arg(stateName(state)));
    }
    QStringList byRepeat;
    for (std::size_t repeat = 0; repeat < configuration.ended.size(); ++repeat) {
      if (const auto& state = configuration.ended[repeat]) {
        byRepeat << tr("repeat %1: %2").arg(repeat + 1).arg(stateName(*state));
      }
    }
    QTableWidgetItem* item = table_->item(row, 1);
    item->setText(text);
    item->setToolTip(byRepeat.join(QLatin1Char('\n')));
  }
}

}  // namespace tb::ui
