// Reading training frameworks' own logs for the Ablation page: a row with
// "Import log…", the ablation label new logs go under (and the selected log
// is moved to) and the GPU count for logs that do not say it. Logs can be
// gigabytes, so tb::logs::importLog runs on a worker (BackgroundTask), one
// batch of files at a time, and each result comes back on the GUI thread.
// Files given while a batch is read wait their turn (a session's logs are
// still being restored when the user drops the next one).
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

#include "tb/common/expected.hpp"
#include "tb/logs/log_import.hpp"

class QComboBox;
class QLineEdit;
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
  QString lossPattern;  ///< --loss-pattern's regular expression; empty: none

  friend bool operator==(const LogImportRequest&, const LogImportRequest&) = default;
};

class AblationLogImport : public QWidget {
  Q_OBJECT

 public:
  explicit AblationLogImport(QWidget* parent = nullptr);
  ~AblationLogImport() override;

  /// Reads `paths` with the row's label and GPU count, after any files
  /// given before.
  void importPaths(const QStringList& paths);
  /// Reads each request as it says (restoring a session's logs).
  void importRequests(const QList<LogImportRequest>& requests);
  /// True while any file given is not yet imported or refused.
  [[nodiscard]] bool isBusy() const;
  /// The requests given that have not come back yet, in order: the page
  /// keeps them in its saved state, so closing while they are read loses
  /// none of them.
  [[nodiscard]] QList<LogImportRequest> pending() const;

  [[nodiscard]] QString label() const;
  void setLabel(const QString& label);
  [[nodiscard]] int gpus() const;
  /// The loss pattern as typed; empty: none.
  [[nodiscard]] QString lossPattern() const;
  /// Where the file dialog opens.
  void setFolder(const QString& folder) { folder_ = folder; }

 Q_SIGNALS:
  /// One log was read; the page lists it under `request.label`.
  void imported(const LogImportRequest& request, const tb::logs::ImportedLog& log);
  /// One log could not be read: the message names it and what was expected.
  void refused(const LogImportRequest& request, const QString& message);
  /// The label chooser changed (the page moves the selected log with it).
  void labelChosen(const QString& label);
  /// Every file given so far has been imported or refused.
  void batchFinished();

 private:
  void chooseFiles();
  /// Checks the pattern as the importer will: an import waits for a good one.
  void checkLossPattern();
  /// Starts reading the queued requests as one batch.
  void startNext();

  QPushButton* button_ = nullptr;
  QComboBox* label_ = nullptr;
  QSpinBox* gpus_ = nullptr;
  QLineEdit* lossPattern_ = nullptr;
  BackgroundTask* task_ = nullptr;
  QList<LogImportRequest> reading_;  ///< the batch on the worker
  QList<LogImportRequest> queued_;   ///< given while it is read
  QString folder_;
};

}  // namespace tb::ui
