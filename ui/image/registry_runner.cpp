// QtConcurrent + QFutureWatcher as in HostDetectionRunner: the watcher
// delivers the outcome on the GUI thread. Progress crosses threads through a
// queued invokeMethod on the runner; if the runner is gone by then, Qt drops
// the call (the destructor waits for the worker first in any case).
#include "ui/image/registry_runner.h"

#include <QtConcurrent/QtConcurrentRun>

#include "ui/qt_text.h"

namespace tb::ui {

RegistryRunner::RegistryRunner(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<RegistryOutcome>::finished, this, [this] {
    running_ = false;
    Q_EMIT finished(watcher_.result());
  });
}

RegistryRunner::~RegistryRunner() {
  watcher_.disconnect(this);
  if (cancel_) cancel_->store(true);
  watcher_.waitForFinished();
}

void RegistryRunner::cancel() {
  if (running_ && cancel_) cancel_->store(true);
}

bool RegistryRunner::start(
    std::function<RegistryOutcome(const std::shared_ptr<std::atomic<bool>>&)> work) {
  if (running_) return false;
  running_ = true;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  watcher_.setFuture(
      QtConcurrent::run([work = std::move(work), cancel = cancel_] { return work(cancel); }));
  Q_EMIT started();
  return true;
}

bool RegistryRunner::listTags(const RegistryLookupTarget& target) {
  return start([this, target](const std::shared_ptr<std::atomic<bool>>& cancel) {
    RegistryOutcome outcome;
    outcome.kind = RegistryOutcome::Kind::Tags;
    outcome.host = toQString(target.host);
    auto client = makeLookupClient(target, cancel);
    if (!client) {
      outcome.error = client.error();
      return outcome;
    }
    const auto report = [this](int done, int total) {
      const QString text = tr("Reading platforms %1 of %2").arg(done).arg(total);
      QMetaObject::invokeMethod(
          this, [this, text] { Q_EMIT progress(text); }, Qt::QueuedConnection);
    };
    auto tags = listTagsWithPlatforms(**client, target.repository, *cancel, report);
    if (tags) {
      outcome.tags = std::move(*tags);
    } else {
      outcome.error = tags.error();
    }
    return outcome;
  });
}

bool RegistryRunner::inspectTag(const RegistryLookupTarget& target, const QString& tag) {
  return start([target, tag](const std::shared_ptr<std::atomic<bool>>& cancel) {
    RegistryOutcome outcome;
    outcome.kind = RegistryOutcome::Kind::Inspection;
    outcome.host = toQString(target.host);
    outcome.tag = tag;
    auto client = makeLookupClient(target, cancel);
    if (!client) {
      outcome.error = client.error();
      return outcome;
    }
    auto inspection = tb::registry::inspectImage(**client, target.repository, toStdString(tag));
    if (inspection) {
      outcome.inspection = std::move(*inspection);
    } else {
      outcome.error = inspection.error();
    }
    return outcome;
  });
}

}  // namespace tb::ui
