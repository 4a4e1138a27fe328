// Reading training frameworks' own logs for the Ablation page: a row with
// "Import log…", the ablation label new logs go under (and the selected log
// is moved to) and the GPU count for logs that do not say it. Logs can be
// gigabytes, so tb::logs::importLog runs on a worker (BackgroundTask), one
// batch of files at a time, and each result comes back on the GUI thread.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

#include "tb/common/expected.hpp"
#include "tb/logs/log_import.hpp"

class QComboBox;
class QPushButton;
class QSpinBox;

namespace tb::ui {

class BackgroundTask;

/// One log to read: where, under which label, with which GPU count (0:
/// the file's own).
struct LogImportRequest {
  QString path;
  QString label;
  int gpus = 0;
};

class AblationLogImport : public QWidget {
  Q_OBJECT

 public:
  explicit AblationLogImport(QWidget* parent = nullptr);
  ~AblationLogImport() override;

  /// Reads `paths` with the row's label and GPU count; false (and nothing
  /// started) while an earlier batch is still being read.
  bool importPaths(const QStringList& paths);
  /// Reads each request as it says (restoring a session's logs).
  bool importRequests(const QList<LogImportRequest>& requests);
  [[nodiscard]] bool isBusy() const;

  [[nodiscard]] QString label() const;
  void setLabel(const QString& label);
  [[nodiscard]] int gpus() const;
  /// Where the file dialog opens.
  void setFolder(const QString& folder) { folder_ = folder; }

 Q_SIGNALS:
  /// One log was read; the page lists it under `request.label`.
  void imported(const LogImportRequest& request, const tb::logs::ImportedLog& log);
  /// One log could not be read: the message names it and what was expected.
  void refused(const LogImportRequest& request, const QString& message);
  /// The label chooser changed (the page moves the selected log with it).
  void labelChosen(const QString& label);
  /// A batch ended (every file imported or refused).
  void batchFinished();

 private:
  void chooseFiles();

  QPushButton* button_ = nullptr;
  QComboBox* label_ = nullptr;
  QSpinBox* gpus_ = nullptr;
  BackgroundTask* task_ = nullptr;
  QString folder_;
};

}  // namespace tb::ui
