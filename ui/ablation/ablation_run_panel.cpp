// Progress comes from lines meant for people (see benchmark_progress.h), so
// the panel trusts a line's run counter when it has one and otherwise counts
// finished runs per configuration itself; neither may run backwards.
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
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <numeric>

#include "tb/bench/ablation.hpp"
#include "tb/model/model_config.hpp"
#include "ui/qt_text.h"

namespace tb::ui {

AblationRunPanel::AblationRunPanel(QWidget* parent)
    : QGroupBox(tr("Run a new ablation"), parent),
      model_(new QComboBox),
      repeats_(new QSpinBox),
      steps_(new QSpinBox),
      run_(new QPushButton(tr("Run ablation"))),
      cancel_(new QPushButton(tr("Cancel"))),
      progress_(new QProgressBar),
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
  repeats_->setToolTip(tr("Runs per configuration, interleaved Base, AC2, +CompilerOpt, "
                          "+CkptOpt, then again, so drift of the machine hits all alike"));
  steps_->setObjectName(QStringLiteral("ablationSteps"));
  steps_->setRange(2, 100000);
  steps_->setValue(20);
  steps_->setToolTip(tr("Training steps per run; the first ones are warm-up and are not "
                        "measured"));
  run_->setObjectName(QStringLiteral("ablationRun"));
  run_->setToolTip(tr("Runs `trainbench benchmark --ablation`: each configuration in a fresh "
                      "child process; the results are loaded when it ends"));
  cancel_->setObjectName(QStringLiteral("ablationCancel"));
  cancel_->setToolTip(tr("Stops the current run; runs that finished are kept and loaded"));
  cancel_->setEnabled(false);
  progress_->setObjectName(QStringLiteral("ablationProgress"));
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setTextVisible(false);
  progress_->setFormat(tr("run %v of %m"));

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
  repeatsPerConfiguration_ = std::max(1, repeats);
  finished_.fill(0);
  lastStatus_.fill(QString());
  runningIndex_ = 0;  // the schedule starts with Base
  progress_->setRange(0, 4 * repeatsPerConfiguration_);
  progress_->setValue(0);
  progress_->setTextVisible(true);
  log_->clear();
  status_->setStyleSheet(QString());
  status_->setText(tr("Starting the benchmark\u2026"));
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  for (QWidget* field : {static_cast<QWidget*>(model_), static_cast<QWidget*>(repeats_),
                         static_cast<QWidget*>(steps_)}) {
    field->setEnabled(false);
  }
  showCounts();
}

void AblationRunPanel::applyProgress(const BenchmarkProgress& progress) {
  if (progress.step) {
    const int index = tb::bench::chainIndex(*progress.step);
    if (progress.started) {
      runningIndex_ = index;
    } else {
      int& done = finished_[static_cast<std::size_t>(index)];
      done = std::min(done + 1, repeatsPerConfiguration_);
      if (!progress.status.isEmpty()) {
        lastStatus_[static_cast<std::size_t>(index)] = progress.status;
      }
      runningIndex_ = (index + 1) % 4;  // the schedule is interleaved ABCD ABCD
    }
  }
  const int counted = std::accumulate(finished_.begin(), finished_.end(), 0);
  int value = std::max(progress_->value(), counted);
  if (progress.runsTotal > 0) {
    if (progress.runsTotal != progress_->maximum()) progress_->setMaximum(progress.runsTotal);
    value = std::max(value, progress.started ? progress.runsDone - 1 : progress.runsDone);
  }
  progress_->setValue(std::min(value, progress_->maximum()));
  showCounts();
  if (progress.step) {
    status_->setText(progress.started
                         ? tr("Running %1\u2026").arg(toQString(tb::bench::label(*progress.step)))
                         : tr("Finished a run of %1.")
                               .arg(toQString(tb::bench::label(*progress.step))));
  }
}

void AblationRunPanel::end(const QString& text, bool isError) {
  runningIndex_ = -1;
  run_->setEnabled(true);
  cancel_->setEnabled(false);
  for (QWidget* field : {static_cast<QWidget*>(model_), static_cast<QWidget*>(repeats_),
                         static_cast<QWidget*>(steps_)}) {
    field->setEnabled(true);
  }
  setStatus(text);
  status_->setStyleSheet(isError ? QStringLiteral("color: #b3261e;") : QString());
  showCounts();
}

void AblationRunPanel::appendLog(const QString& line) { log_->appendPlainText(line); }

void AblationRunPanel::setStatus(const QString& text) { status_->setText(text); }

int AblationRunPanel::finishedRuns(int index) const {
  return index >= 0 && index < 4 ? finished_[static_cast<std::size_t>(index)] : 0;
}

void AblationRunPanel::showCounts() {
  for (int row = 0; row < 4; ++row) {
    const auto at = static_cast<std::size_t>(row);
    QString text = tr("%1 of %2").arg(finished_[at]).arg(repeatsPerConfiguration_);
    if (row == runningIndex_ && finished_[at] < repeatsPerConfiguration_) {
      text += tr(" \u00b7 running");
    } else if (!lastStatus_[at].isEmpty() && lastStatus_[at] != QLatin1String("ok")) {
      text += QStringLiteral(" \u00b7 ") + lastStatus_[at];
    }
    table_->item(row, 1)->setText(text);
  }
}

}  // namespace tb::ui
