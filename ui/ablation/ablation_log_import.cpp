// The batch is read in one worker run rather than one run per file, so the
// files' results arrive in the order they were given; files given while it
// is read are queued here and read as the next batch, never racing it (the
// task itself refuses a second start, Policy::Refuse).
#include "ui/ablation/ablation_log_import.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QVBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

#include <utility>
#include <vector>

#include "tb/bench/ablation.hpp"
#include "tb/logs/loss_pattern.hpp"
#include "ui/qt_text.h"
#include "ui/widgets/background_task.h"

namespace tb::ui {
namespace {

struct LogImportResult {
  LogImportRequest request;
  tb::Expected<tb::logs::ImportedLog> log;
};

QString importHelp() {
  return AblationLogImport::tr(
      "Logs real training runs wrote: Hugging Face Trainer, Megatron-LM, "
      "DeepSpeed, torchtitan, NeMo/Lightning, MLPerf, TensorBoard (the "
      "format is read from the content; a folder can be dropped here)");
}

QString lossPatternHelp() {
  return AblationLogImport::tr(
      "For a log whose framework prints no loss: a regular expression for the training "
      "script's own loss line, its first group the loss, an optional (?<step>\\d+) group its "
      "step (else the last step the framework printed). Example: loss=([0-9.]+)");
}

}  // namespace

AblationLogImport::AblationLogImport(QWidget* parent)
    : QWidget(parent), task_(new BackgroundTask(BackgroundTask::Policy::Refuse, this)) {
  setObjectName(QStringLiteral("ablationLogImport"));
  button_ = new QPushButton(tr("Import log\u2026"));
  button_->setObjectName(QStringLiteral("ablationImportLog"));
  button_->setToolTip(importHelp());
  label_ = new QComboBox;
  label_->setObjectName(QStringLiteral("ablationLogLabel"));
  for (const tb::bench::AblationStep step : tb::bench::kAblationSteps) {
    label_->addItem(toQString(std::string(tb::bench::label(step))));
  }
  label_->setToolTip(tr("The ablation label of the next log imported, and of the selected one"));
  gpus_ = new QSpinBox;
  gpus_->setObjectName(QStringLiteral("ablationLogGpus"));
  gpus_->setRange(0, 1'000'000);
  gpus_->setSpecialValueText(tr("from file"));
  gpus_->setToolTip(
      tr("GPUs of the job, for logs that do not say (Megatron without its "
         "argument dump, torchtitan, the Trainer)"));

  lossPattern_ = new QLineEdit;
  lossPattern_->setObjectName(QStringLiteral("ablationLogLossPattern"));
  lossPattern_->setPlaceholderText(tr("optional, e.g. loss=([0-9.]+)"));
  lossPattern_->setClearButtonEnabled(true);
  lossPattern_->setToolTip(lossPatternHelp());

  auto* rows = new QVBoxLayout(this);
  rows->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  row->addWidget(button_);
  row->addWidget(new QLabel(tr("as")));
  row->addWidget(label_, 1);
  row->addWidget(new QLabel(tr("GPUs")));
  row->addWidget(gpus_);
  rows->addLayout(row);
  // The pattern gets a line of its own: a regular expression needs the width.
  auto* patternRow = new QHBoxLayout;
  auto* patternLabel = new QLabel(tr("Loss pattern"));
  patternLabel->setBuddy(lossPattern_);
  patternRow->addWidget(patternLabel);
  patternRow->addWidget(lossPattern_, 1);
  rows->addLayout(patternRow);

  connect(button_, &QPushButton::clicked, this, &AblationLogImport::chooseFiles);
  connect(lossPattern_, &QLineEdit::textChanged, this, &AblationLogImport::checkLossPattern);
  connect(label_, &QComboBox::activated, this,
          [this] { Q_EMIT labelChosen(label_->currentText()); });
  // A reader that threw (it should not: importLog returns its errors) must
  // not take the batch's files with it unnamed.
  connect(task_, &BackgroundTask::failed, this, [this](const QString& message) {
    for (const LogImportRequest& request : std::exchange(reading_, {})) {
      Q_EMIT refused(request, QStringLiteral("%1: %2").arg(request.path, message));
    }
  });
  connect(task_, &BackgroundTask::finished, this, [this] {
    reading_.clear();
    if (!queued_.isEmpty()) {
      startNext();
      return;
    }
    Q_EMIT batchFinished();
  });
}

AblationLogImport::~AblationLogImport() = default;

QString AblationLogImport::label() const { return label_->currentText(); }

void AblationLogImport::setLabel(const QString& label) {
  const int index = label_->findText(label);
  if (index >= 0) label_->setCurrentIndex(index);
}

int AblationLogImport::gpus() const { return gpus_->value(); }

QString AblationLogImport::lossPattern() const { return lossPattern_->text(); }

void AblationLogImport::checkLossPattern() {
  const QString text = lossPattern_->text();
  QString problem;
  if (!text.isEmpty()) {
    if (auto pattern = tb::logs::LossPattern::compile(toStdString(text)); !pattern)
      problem = toQString(pattern.error().message);
  }
  lossPattern_->setStyleSheet(
      problem.isEmpty() ? QString() : QStringLiteral("QLineEdit { border: 1px solid #c0392b; }"));
  lossPattern_->setToolTip(problem.isEmpty() ? lossPatternHelp() : problem);
  button_->setEnabled(problem.isEmpty());
  button_->setToolTip(problem.isEmpty() ? importHelp() : problem);
}

bool AblationLogImport::isBusy() const { return !reading_.isEmpty() || !queued_.isEmpty(); }

QList<LogImportRequest> AblationLogImport::pending() const { return reading_ + queued_; }

void AblationLogImport::importPaths(const QStringList& paths) {
  QList<LogImportRequest> requests;
  for (const QString& path : paths) requests.append({path, label(), gpus(), lossPattern()});
  if (!button_->isEnabled()) {  // a pattern the importer would refuse (a drop, not the button)
    for (const LogImportRequest& request : requests)
      Q_EMIT refused(request, QStringLiteral("%1: %2").arg(request.path, button_->toolTip()));
    return;
  }
  importRequests(requests);
}

void AblationLogImport::importRequests(const QList<LogImportRequest>& requests) {
  queued_.append(requests);
  if (reading_.isEmpty() && !queued_.isEmpty()) startNext();
}

void AblationLogImport::startNext() {
  reading_ = std::exchange(queued_, {});
  std::vector<LogImportRequest> batch(reading_.begin(), reading_.end());
  const bool started = task_->start(
      [batch](const tb::StopToken& stop) {
        std::vector<LogImportResult> results;
        for (const LogImportRequest& request : batch) {
          if (stop.stopRequested()) break;
          tb::logs::ImportOptions options;
          if (request.gpus > 0) options.gpus = request.gpus;
          if (!request.lossPattern.isEmpty())
            options.lossPattern = toStdString(request.lossPattern);
          results.push_back({request, tb::logs::importLog(toStdString(request.path), options)});
        }
        return results;
      },
      [this](std::vector<LogImportResult> results) {
        // Emitted before `finished` clears reading_, so a page saving its
        // state from these signals still counts the rest of the batch.
        for (LogImportResult& result : results) {
          reading_.removeOne(result.request);
          if (result.log) {
            Q_EMIT imported(result.request, *result.log);
          } else {
            Q_EMIT refused(result.request, toQString(result.log.error().message));
          }
        }
      });
  // Only this object starts the task, and only when it is idle.
  Q_ASSERT(started);
  (void)started;
}

void AblationLogImport::chooseFiles() {
  const QStringList paths = QFileDialog::getOpenFileNames(
      this, tr("Import Training Logs"), folder_,
      tr("Training logs (*.log *.txt *.json *.csv events.out.tfevents.*);;All files (*)"));
  if (!paths.isEmpty()) importPaths(paths);
}

}  // namespace tb::ui
