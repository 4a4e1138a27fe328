// Core work that may take long (reading a run store, a registry call, a
// memory plan) runs on the thread pool and answers on the GUI thread; the GUI
// thread never waits for it. The one way of doing that here: a task with a
// policy for a start that comes while one runs, instead of a QFutureWatcher,
// a generation counter and a stop flag hand-rolled per page.
//
// Cancellation is core's shape: the work takes a tb::StopToken it polls and
// a tb::ProgressFn it may call. A superseded run is asked to stop and its
// result is dropped; a cancelled one is asked to stop and its result (what
// the work returns when stopped) is still delivered.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "tb/common/stop_token.hpp"

namespace tb::ui {

namespace detail {

// Work may take (stop, progress), (stop) or nothing, so a call that cannot be
// stopped (host detection) does not have to name arguments it ignores.
template <class Work>
decltype(auto) invokeWork(Work& work, const tb::StopToken& stop, const tb::ProgressFn& progress) {
  if constexpr (std::is_invocable_v<Work&, const tb::StopToken&, const tb::ProgressFn&>) {
    return work(stop, progress);
  } else if constexpr (std::is_invocable_v<Work&, const tb::StopToken&>) {
    return work(stop);
  } else {
    return work();
  }
}

template <class Work>
using WorkResult =
    std::decay_t<decltype(invokeWork(std::declval<Work&>(), std::declval<const tb::StopToken&>(),
                                     std::declval<const tb::ProgressFn&>()))>;

}  // namespace detail

/// Runs callables on Qt's global thread pool, one current run at a time, and
/// hands each current run's result to its `done` on the GUI thread.
class BackgroundTask : public QObject {
  Q_OBJECT

 public:
  /// What start() does while a run is in flight.
  enum class Policy {
    Refuse,     ///< refuses the new start (returns false); the running one goes on
    Supersede,  ///< stops the running one, drops its result, starts the new one
    Debounce,   ///< as Supersede, but starts only after a quiet interval; each
                ///< start restarts the interval and replaces the waiting work
  };

  explicit BackgroundTask(Policy policy, QObject* parent = nullptr);
  /// Asks every run still in flight to stop and waits for it, so no worker
  /// outlives what its work captured; no result is delivered after this.
  ~BackgroundTask() override;

  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;

  [[nodiscard]] Policy policy() const noexcept { return policy_; }
  /// Debounce: the quiet interval (default 150 ms).
  void setDebounceInterval(std::chrono::milliseconds interval);

  /// Runs `work` on the thread pool and then `done(result)` on the GUI thread,
  /// unless a later start superseded it or the task was destroyed. `work` is
  /// callable as work(const tb::StopToken&, const tb::ProgressFn&),
  /// work(const tb::StopToken&) or work(), runs on a worker thread and must
  /// not throw (core reports failure through tb::Expected); both must be
  /// copyable. Returns false only when the policy is Refuse and a run is in
  /// flight.
  template <class Work, class Done>
  bool start(Work work, Done done) {
    using Result = detail::WorkResult<Work>;
    static_assert(!std::is_void_v<Result>, "the work must return what `done` is given");
    auto result = std::make_shared<std::optional<Result>>();
    return launch(
        [work = std::move(work), result](const tb::StopToken& stop,
                                         const tb::ProgressFn& progress) mutable {
          result->emplace(detail::invokeWork(work, stop, progress));
        },
        [done = std::move(done), result]() mutable { done(std::move(**result)); });
  }

  /// Asks the current run to stop (its result still arrives, as the work
  /// answers when stopped) and drops a start still waiting for its interval.
  void cancel();

  /// A run was started and its result has not been delivered yet.
  [[nodiscard]] bool isRunning() const noexcept { return current_ != 0; }
  /// Debounce: a start waits for its quiet interval.
  [[nodiscard]] bool isPending() const noexcept { return debounce_.isActive(); }
  /// Running or pending: a result is still to come.
  [[nodiscard]] bool isBusy() const noexcept { return isRunning() || isPending(); }

 Q_SIGNALS:
  /// The current run reported progress (a superseded run's reports are dropped).
  void progressed(qint64 done, qint64 total, const QString& what);
  /// The current run's work threw (`done` is not called): what it said.
  void failed(const QString& message);
  /// The current run ended: its result was handed to its `done`, or it failed.
  void finished();

 Q_SIGNALS:
  // Internal: a worker's report, queued to the GUI thread.
  void flightProgressed(quint64 id, qint64 done, qint64 total, const QString& what, QPrivateSignal);
  void flightLanded(quint64 id, QPrivateSignal);

 private:
  using Body = std::function<void(const tb::StopToken&, const tb::ProgressFn&)>;
  using Delivery = std::function<void()>;
  struct Job {
    Body body;
    Delivery deliver;
  };
  struct Flight;
  class FlightRunnable;

  bool launch(Body body, Delivery deliver);
  void run(Job job);
  void pruneFinished();
  void supersede();
  void land(quint64 id);
  void finish(quint64 id, const Delivery& deliver, const QString& failure);
  void report(quint64 id, qint64 done, qint64 total, const QString& what);

  Policy policy_;
  QTimer debounce_;
  std::optional<Job> waiting_;  ///< Debounce: the work the interval will start
  /// Every run whose worker may not have finished, current or superseded
  /// (shared with its worker); the destructor waits for each.
  std::vector<std::shared_ptr<Flight>> flights_;
  tb::StopSource currentStop_;
  quint64 current_ = 0;  ///< id of the run whose result is wanted; 0: none
  quint64 lastId_ = 0;
};

}  // namespace tb::ui
