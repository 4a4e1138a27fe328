// Results and progress cross to the GUI thread as queued signals of the
// task. Each carries its run's id, and only the current id is delivered, so a
// superseded run that finishes late is dropped however the events interleave.
// The destructor waits for every run, so those signals always find the task
// alive when they are emitted; Qt discards the ones still queued when the
// task is destroyed.
//
// The run's state crosses in a Flight the task builds before the hand-over
// and the worker writes only under the Flight's mutex, not in the captures of
// a queued lambda: the queues in between are Qt's, whose locks
// ThreadSanitizer cannot see, so data carried through them would be reported
// as racing (tb/common/hand_over.hpp).
#include "ui/widgets/background_task.h"

#include <QPointer>
#include <QRunnable>
#include <QThreadPool>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>

#include "tb/common/hand_over.hpp"

namespace tb::ui {
namespace {

constexpr std::chrono::milliseconds kDefaultDebounce{150};

}  // namespace

/// One run, shared by the task (GUI thread) and its worker.
struct BackgroundTask::Flight {
  quint64 id = 0;
  Job job;  ///< written before the hand-over; the worker calls job.body
  tb::StopSource stop;
  std::mutex mutex;
  std::condition_variable ended;
  QString failure;        ///< guarded by mutex: what the work threw, empty if nothing
  bool finished = false;  ///< guarded by mutex: the worker no longer touches the task
};

/// The worker's side of a Flight; Qt's pool deletes it after run().
class BackgroundTask::FlightRunnable final : public QRunnable {
 public:
  FlightRunnable(BackgroundTask* task, std::shared_ptr<Flight> flight)
      : task_(task), flight_(std::move(flight)) {}

  void run() override {
    tb::tookOver(this);
    Flight& flight = *flight_;
    BackgroundTask* task = task_;
    const quint64 id = flight.id;
    const tb::ProgressFn progress = [task, id](const tb::Progress& step) {
      // `what` is a view into the worker's memory: copy it before crossing.
      const QString what =
          QString::fromUtf8(step.what.data(), static_cast<qsizetype>(step.what.size()));
      Q_EMIT task->flightProgressed(id, step.done, step.total, what, QPrivateSignal());
    };
    // Work must not throw (core reports through tb::Expected), but one that
    // does (a filesystem iterator, a bad_alloc) must not leave the task
    // running forever or take the worker thread down.
    QString failure;
    try {
      flight.job.body(flight.stop.token(), progress);
    } catch (const std::exception& error) {
      failure = QString::fromUtf8(error.what());
      // An empty failure means success: never deliver a result that is not there.
      if (failure.isEmpty()) failure = QStringLiteral("an exception without a message");
    } catch (...) {
      failure = QStringLiteral("unknown exception");
    }
    {
      const std::lock_guard lock(flight.mutex);
      flight.failure = failure;
    }
    Q_EMIT task->flightLanded(id, QPrivateSignal());
    {
      const std::lock_guard lock(flight.mutex);
      flight.finished = true;
    }
    // The Flight outlives this notification: this runnable still holds it.
    flight.ended.notify_all();
  }

 private:
  BackgroundTask* task_;
  std::shared_ptr<Flight> flight_;
};

BackgroundTask::BackgroundTask(Policy policy, QObject* parent) : QObject(parent), policy_(policy) {
  debounce_.setSingleShot(true);
  debounce_.setInterval(kDefaultDebounce);
  connect(&debounce_, &QTimer::timeout, this, [this] {
    if (!waiting_) return;
    Job job = std::move(*waiting_);
    waiting_.reset();
    run(std::move(job));
  });
  connect(this, &BackgroundTask::flightLanded, this, &BackgroundTask::land, Qt::QueuedConnection);
  connect(this, &BackgroundTask::flightProgressed, this, &BackgroundTask::report,
          Qt::QueuedConnection);
}

BackgroundTask::~BackgroundTask() {
  debounce_.stop();
  current_ = 0;
  for (const auto& flight : flights_) flight->stop.requestStop();
  for (const auto& flight : flights_) {
    std::unique_lock lock(flight->mutex);
    flight->ended.wait(lock, [&flight] { return flight->finished; });
  }
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

void BackgroundTask::pruneFinished() {
  std::erase_if(flights_, [](const std::shared_ptr<Flight>& flight) {
    const std::lock_guard lock(flight->mutex);
    return flight->finished;
  });
}

void BackgroundTask::run(Job job) {
  pruneFinished();
  auto flight = std::make_shared<Flight>();
  flight->id = ++lastId_;
  flight->job = std::move(job);
  current_ = flight->id;
  currentStop_ = flight->stop;
  flights_.push_back(flight);
  auto* runnable = new FlightRunnable(this, std::move(flight));
  tb::handOver(runnable);
  QThreadPool::globalInstance()->start(runnable);
}

void BackgroundTask::land(quint64 id) {
  const auto found = std::find_if(flights_.begin(), flights_.end(),
                                  [id](const auto& flight) { return flight->id == id; });
  if (found == flights_.end()) return;
  // Kept until its worker has finished: the worker may still be inside the
  // emit that brought this here, which reads the task, so the destructor
  // must go on waiting for it.
  const std::shared_ptr<Flight> flight = *found;
  QString failure;
  {
    const std::lock_guard lock(flight->mutex);
    failure = flight->failure;
  }
  finish(id, failure.isEmpty() ? flight->job.deliver : Delivery(), failure);
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
