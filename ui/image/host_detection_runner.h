// Host detection can take seconds (nvidia-smi on a busy node, a slow NVML
// init), so it runs on a worker thread and reports back as a signal; the GUI
// thread never waits on it.
#pragma once

#include <QFutureWatcher>
#include <QObject>

#include "tb/compat/host_detection.hpp"

namespace tb::ui {

/// Runs tb::compat::detectHost in the thread pool, one run at a time.
class HostDetectionRunner : public QObject {
  Q_OBJECT

 public:
  explicit HostDetectionRunner(QObject* parent = nullptr);
  ~HostDetectionRunner() override;

  /// Starts a run with options read from the environment; a no-op while one
  /// is in flight.
  void start();
  /// True from start() until finished() has been emitted.
  [[nodiscard]] bool isRunning() const noexcept { return running_; }

 Q_SIGNALS:
  void started();
  void finished(const tb::compat::HostInfo& host);

 private:
  QFutureWatcher<tb::compat::HostInfo> watcher_;
  bool running_ = false;
};

}  // namespace tb::ui
