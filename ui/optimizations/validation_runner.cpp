// Each run gets its own stop flag, so cancelling the old run cannot stop the
// new one; the watcher is re-pointed at the newest future, so a superseded
// run's result is never delivered. The destructor waits for a run in flight,
// and for superseded ones, so no worker outlives the object it reports to.
#include "ui/optimizations/validation_runner.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

#include "ui/qt_text.h"

namespace tb::ui {

ValidationResult validatePaths(const QStringList& paths, const tb::catalog::Catalog& catalog,
                               const std::atomic<bool>& stop,
                               const std::function<void(int)>& onFile) {
  ValidationResult result;
  for (const QString& path : paths) {
    if (stop.load()) {
      result.cancelled = true;
      break;
    }
    const std::string name = toStdString(path);
    auto report = tb::config::validateFile(name, tb::config::FileKind::Auto, catalog);
    ++result.fileCount;
    if (!report) {
      // An unreadable file is still an answer about that file, so it is a row.
      tb::config::Finding finding;
      finding.severity = tb::config::Severity::Error;
      finding.file = name;
      finding.rule = "unreadable";
      finding.message = report.error().message;
      finding.fix = "check that the file exists and is readable";
      result.rows.push_back({std::move(finding), path, tb::config::FileKind::Auto});
    } else if (report->findings.empty()) {
      result.cleanFiles.append(QFileInfo(path).fileName());
    } else {
      for (tb::config::Finding& finding : report->findings) {
        result.rows.push_back({std::move(finding), path, report->kind});
      }
    }
    if (onFile) onFile(result.fileCount);
  }
  return result;
}

ValidationRunner::ValidationRunner(QObject* parent) : QObject(parent) {
  qRegisterMetaType<tb::ui::ValidationResult>();
  connect(&watcher_, &QFutureWatcher<ValidationResult>::finished, this, [this] {
    running_ = false;
    Q_EMIT finished(watcher_.result());
  });
}

ValidationRunner::~ValidationRunner() {
  watcher_.disconnect(this);
  cancel();
  watcher_.waitForFinished();
  for (QFuture<ValidationResult>& future : superseded_) future.waitForFinished();
}

void ValidationRunner::start(const QStringList& paths, const tb::catalog::Catalog& catalog) {
  cancel();
  if (running_) superseded_.push_back(watcher_.future());
  std::erase_if(superseded_, [](const QFuture<ValidationResult>& f) { return f.isFinished(); });
  stop_ = std::make_shared<std::atomic<bool>>(false);
  const int generation = ++generation_;
  running_ = true;
  const int total = static_cast<int>(paths.size());
  // `this` outlives every worker (the destructor waits), so the queued
  // call is safe; a superseded run's progress is dropped by its generation.
  auto onFile = [this, generation, total](int done) {
    QMetaObject::invokeMethod(
        this,
        [this, generation, total, done] {
          if (generation_ == generation) Q_EMIT progress(done, total);
        },
        Qt::QueuedConnection);
  };
  watcher_.setFuture(QtConcurrent::run([paths, catalog, stop = stop_, onFile] {
    return validatePaths(paths, catalog, *stop, onFile);
  }));
  Q_EMIT started(total);
}

void ValidationRunner::cancel() {
  if (stop_) stop_->store(true);
}

}  // namespace tb::ui
