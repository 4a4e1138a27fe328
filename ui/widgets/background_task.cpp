// Results and progress cross to the GUI thread as queued calls on the task.
// Each carries its run's id, and only the current id is delivered, so a
// superseded run that finishes late is dropped however the events interleave.
// The destructor waits for every run, so those calls always find the task
// alive when they are posted; Qt discards the ones still queued when the task
// is destroyed.
#include "ui/widgets/background_task.h"

#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

namespace tb::ui {
namespace {

constexpr std::chrono::milliseconds kDefaultDebounce{150};

}  // namespace

BackgroundTask::BackgroundTask(Policy policy, QObject* parent) : QObject(parent), policy_(policy) {
  debounce_.setSingleShot(true);
  debounce_.setInterval(kDefaultDebounce);
  connect(&debounce_, &QTimer::timeout, this, [this] {
    if (!waiting_) return;
    Job job = std::move(*waiting_);
    waiting_.reset();
    run(std::move(job));
  });
}

BackgroundTask::~BackgroundTask() {
  debounce_.stop();
  current_ = 0;
  for (const Flight& flight : flights_) flight.stop.requestStop();
  for (Flight& flight : flights_) flight.future.waitForFinished();
}

void BackgroundTask::setDebounceInterval(std::chrono::milliseconds interval) {
  debounce_.setInterval(interval);
}

bool BackgroundTask::launch(Body body, Delivery deliver) {
  if (policy_ == Policy::Refuse && isRunning()) return false;
  // A newer start means the running work answers an older question.
  supersede();
  if (policy_ == Policy::Debounce) {
    waiting_ = Job{std::move(body), std::move(deliver)};
    debounce_.start();
  } else {
    run(Job{std::move(body), std::move(deliver)});
  }
  return true;
}

void BackgroundTask::cancel() {
  debounce_.stop();
  waiting_.reset();
  if (isRunning()) currentStop_.requestStop();
}

void BackgroundTask::supersede() {
  if (!isRunning()) return;
  currentStop_.requestStop();
  current_ = 0;
}

void BackgroundTask::run(Job job) {
  std::erase_if(flights_, [](const Flight& flight) { return flight.future.isFinished(); });
  const quint64 id = ++lastId_;
  current_ = id;
  currentStop_ = tb::StopSource();
  tb::ProgressFn progress = [this, id](const tb::Progress& step) {
    // `what` is a view into the worker's memory: copy it before crossing.
    const QString what =
        QString::fromUtf8(step.what.data(), static_cast<qsizetype>(step.what.size()));
    QMetaObject::invokeMethod(
        this, [this, id, done = step.done, total = step.total, what] {
          report(id, done, total, what);
        },
        Qt::QueuedConnection);
  };
  QFuture<void> future = QtConcurrent::run(
      [this, id, body = std::move(job.body), deliver = std::move(job.deliver),
       stop = currentStop_.token(), progress = std::move(progress)] {
        // Work must not throw (core reports through tb::Expected), but one that
        // does (a filesystem iterator, a bad_alloc) must not leave the task
        // running forever or make the destructor's wait rethrow.
        QString failure;
        try {
          body(stop, progress);
        } catch (const std::exception& error) {
          failure = QString::fromUtf8(error.what());
        } catch (...) {
          failure = QStringLiteral("unknown exception");
        }
        QMetaObject::invokeMethod(
            this,
            [this, id, deliver, failure] {
              finish(id, failure.isEmpty() ? deliver : Delivery(), failure);
            },
            Qt::QueuedConnection);
      });
  flights_.push_back({std::move(future), currentStop_});
}

void BackgroundTask::finish(quint64 id, const Delivery& deliver, const QString& failure) {
  if (id != current_) return;  // superseded: its question is no longer asked
  // Cleared first, so that `done` may start the next run; `done` may also
  // close what owns the task, so the task is checked before it signals.
  current_ = 0;
  const QPointer<BackgroundTask> alive(this);
  if (deliver) {
    deliver();
  } else {
    Q_EMIT failed(failure);
  }
  if (alive) Q_EMIT finished();
}

void BackgroundTask::report(quint64 id, qint64 done, qint64 total, const QString& what) {
  if (id == current_) Q_EMIT progressed(done, total, what);
}

}  // namespace tb::ui
