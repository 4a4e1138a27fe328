// Validation reads and parses files (YAML, JSON) that may be large or sit on
// a slow network share, so it runs on the thread pool and reports back as
// signals; the GUI thread never waits on it. A newer run supersedes an older
// one: the old one is asked to stop between files and its result dropped.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "tb/catalog/catalog.hpp"
#include "ui/optimizations/finding_table_model.h"

namespace tb::ui {

/// What one validation run found.
struct ValidationResult {
  std::vector<FindingRow> rows;  ///< every finding of every file
  QStringList cleanFiles;        ///< files that produced no finding
  int fileCount = 0;             ///< files checked
  bool cancelled = false;
};

/// Runs tb::config::validateFile over a list of files, one run at a time.
class ValidationRunner : public QObject {
  Q_OBJECT

 public:
  explicit ValidationRunner(QObject* parent = nullptr);
  ~ValidationRunner() override;

  /// Starts checking `paths` against a copy of `catalog`; a run still in
  /// flight is cancelled and its result never delivered.
  void start(const QStringList& paths, const tb::catalog::Catalog& catalog);
  /// Asks the current run to stop after the file it is reading.
  void cancel();
  /// True from start() until finished() has been emitted.
  [[nodiscard]] bool isRunning() const noexcept { return running_; }

 Q_SIGNALS:
  void started(int fileCount);
  /// `done` of `total` files checked; emitted on the GUI thread.
  void progress(int done, int total);
  void finished(const tb::ui::ValidationResult& result);

 private:
  QFutureWatcher<ValidationResult> watcher_;
  std::vector<QFuture<ValidationResult>> superseded_;  ///< waited for on destruction
  std::shared_ptr<std::atomic<bool>> stop_;
  int generation_ = 0;
  bool running_ = false;
};

/// Validates `paths` on the calling thread; `stop` is polled between files
/// and `onFile(done)` called after each. The worker body, public for tests.
[[nodiscard]] ValidationResult validatePaths(const QStringList& paths,
                                             const tb::catalog::Catalog& catalog,
                                             const std::atomic<bool>& stop,
                                             const std::function<void(int)>& onFile);

}  // namespace tb::ui
