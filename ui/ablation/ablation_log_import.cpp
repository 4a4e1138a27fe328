// The batch is read in one worker run rather than one run per file, so the
// files' results arrive in the order they were given, and a second batch
// while one is read is refused (Policy::Refuse) instead of racing it.
#include "ui/ablation/ablation_log_import.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>

#include <utility>
#include <vector>

#include "tb/bench/ablation.hpp"
#include "ui/qt_text.h"
#include "ui/widgets/background_task.h"

namespace tb::ui {
namespace {

struct LogImportResult {
  LogImportRequest request;
  tb::Expected<tb::logs::ImportedLog> log;
};

}  // namespace

AblationLogImport::AblationLogImport(QWidget* parent)
    : QWidget(parent), task_(new BackgroundTask(BackgroundTask::Policy::Refuse, this)) {
  setObjectName(QStringLiteral("ablationLogImport"));
  button_ = new QPushButton(tr("Import log\u2026"));
  button_->setObjectName(QStringLiteral("ablationImportLog"));
  button_->setToolTip(tr("Logs real training runs wrote: Hugging Face Trainer, Megatron-LM, "
                         "DeepSpeed, torchtitan, NeMo/Lightning, MLPerf, TensorBoard (the "
                         "format is read from the content; a folder can be dropped here)"));
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
  gpus_->setToolTip(tr("GPUs of the job, for logs that do not say (Megatron without its "
                       "argument dump, torchtitan, the Trainer)"));

  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(button_);
  row->addWidget(new QLabel(tr("as")));
  row->addWidget(label_, 1);
  row->addWidget(new QLabel(tr("GPUs")));
  row->addWidget(gpus_);

  connect(button_, &QPushButton::clicked, this, &AblationLogImport::chooseFiles);
  connect(label_, &QComboBox::activated, this,
          [this] { Q_EMIT labelChosen(label_->currentText()); });
  connect(task_, &BackgroundTask::finished, this, [this] {
    button_->setEnabled(true);
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

bool AblationLogImport::isBusy() const { return task_->isBusy(); }

bool AblationLogImport::importPaths(const QStringList& paths) {
  QList<LogImportRequest> requests;
  for (const QString& path : paths) requests.append({path, label(), gpus()});
  return importRequests(requests);
}

bool AblationLogImport::importRequests(const QList<LogImportRequest>& requests) {
  if (requests.isEmpty()) return true;
  std::vector<LogImportRequest> batch(requests.begin(), requests.end());
  const bool started = task_->start(
      [batch](const tb::StopToken& stop) {
        std::vector<LogImportResult> results;
        for (const LogImportRequest& request : batch) {
          if (stop.stopRequested()) break;
          tb::logs::ImportOptions options;
          if (request.gpus > 0) options.gpus = request.gpus;
          results.push_back({request, tb::logs::importLog(toStdString(request.path), options)});
        }
        return results;
      },
      [this](std::vector<LogImportResult> results) {
        for (LogImportResult& result : results) {
          if (result.log) {
            Q_EMIT imported(result.request, *result.log);
          } else {
            Q_EMIT refused(result.request, toQString(result.log.error().message));
          }
        }
      });
  if (started) button_->setEnabled(false);
  return started;
}

void AblationLogImport::chooseFiles() {
  const QStringList paths = QFileDialog::getOpenFileNames(
      this, tr("Import Training Logs"), folder_,
      tr("Training logs (*.log *.txt *.json *.csv events.out.tfevents.*);;All files (*)"));
  if (!paths.isEmpty()) importPaths(paths);
}

}  // namespace tb::ui
