// QtConcurrent + QFutureWatcher instead of a hand-made QThread: the watcher
// delivers the result on the GUI thread, and the destructor waits for a run
// still in flight so no worker outlives the object it reports to.
#include "ui/image/host_detection_runner.h"

#include <QtConcurrent/QtConcurrentRun>

namespace tb::ui {

HostDetectionRunner::HostDetectionRunner(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<tb::compat::HostInfo>::finished, this, [this] {
    running_ = false;
    Q_EMIT finished(watcher_.result());
  });
}

HostDetectionRunner::~HostDetectionRunner() {
  watcher_.disconnect(this);
  watcher_.waitForFinished();
}

void HostDetectionRunner::start() {
  if (running_) return;
  running_ = true;
  watcher_.setFuture(QtConcurrent::run(
      [] { return tb::compat::detectHost(tb::compat::detectOptionsFromEnvironment()); }));
  Q_EMIT started();
}

}  // namespace tb::ui
