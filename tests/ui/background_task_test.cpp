// The GUI's one way of running core work off the GUI thread: each policy,
// results and progress on the GUI thread, a superseded result that never
// arrives, and a destructor that stops and waits. Work that blocks does so
// on a gate with a deadline, and every wait is bounded, so a broken task
// fails these tests instead of hanging them.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tb/common/stop_token.hpp"
#include "ui/widgets/background_task.h"

using tb::ui::BackgroundTask;
using namespace std::chrono_literals;

namespace {

constexpr int kWaitMs = 5000;

/// Holds work until opened, or until its run is asked to stop.
struct Gate {
  std::atomic<bool> open{false};
  std::atomic<bool> sawStop{false};   ///< the work's token was stopped
  std::atomic<bool> returned{false};  ///< the work has returned

  /// Waits (at most ten seconds) for open or stop; true when stopped.
  bool hold(const tb::StopToken& stop) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!open.load() && std::chrono::steady_clock::now() < deadline) {
      if (stop.stopRequested()) {
        sawStop = true;
        return true;
      }
      std::this_thread::sleep_for(1ms);
    }
    return false;
  }
};

}  // namespace

class BackgroundTaskTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void resultArrivesOnTheGuiThread() {
    BackgroundTask task(BackgroundTask::Policy::Refuse);
    QSignalSpy finished(&task, &BackgroundTask::finished);
    QThread* worker = nullptr;
    QThread* deliveredOn = nullptr;
    int result = 0;
    QVERIFY(task.start(
        [&worker] {
          worker = QThread::currentThread();
          return 42;
        },
        [&](int value) {
          deliveredOn = QThread::currentThread();
          result = value;
        }));
    QVERIFY(task.isRunning());
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(result, 42);
    QCOMPARE(deliveredOn, QCoreApplication::instance()->thread());
    QVERIFY(worker != nullptr && worker != deliveredOn);
    QVERIFY(!task.isRunning());
  }

  void workThatThrowsIsReportedAndLeavesTheTaskUsable() {
    BackgroundTask task(BackgroundTask::Policy::Refuse);
    QSignalSpy failed(&task, &BackgroundTask::failed);
    QSignalSpy finished(&task, &BackgroundTask::finished);
    bool delivered = false;
    QVERIFY(task.start([]() -> int { throw std::runtime_error("directory vanished"); },
                       [&delivered](int) { delivered = true; }));
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("directory vanished"));
    QVERIFY(!delivered);
    QVERIFY(!task.isRunning());
    int result = 0;
    QVERIFY(task.start([] { return 7; }, [&result](int value) { result = value; }));
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(result, 7);
  }

  void refuseRefusesAStartWhileOneRuns() {
    BackgroundTask task(BackgroundTask::Policy::Refuse);
    QSignalSpy finished(&task, &BackgroundTask::finished);
    Gate gate;
    std::vector<int> results;
    QVERIFY(task.start(
        [&gate](const tb::StopToken& stop) {
          (void)gate.hold(stop);
          return 1;
        },
        [&results](int value) { results.push_back(value); }));
    QVERIFY(!task.start([] { return 2; }, [&results](int value) { results.push_back(value); }));
    QVERIFY(task.isRunning());
    gate.open = true;
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results, std::vector<int>{1});
    QVERIFY(!gate.sawStop.load());  // the refused start did not stop the running one

    // Once the result is in, the next start is taken.
    QVERIFY(task.start([] { return 3; }, [&results](int value) { results.push_back(value); }));
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results, (std::vector<int>{1, 3}));
  }

  void supersedeStopsTheOldRunAndNeverDeliversIt() {
    BackgroundTask task(BackgroundTask::Policy::Supersede);
    QSignalSpy finished(&task, &BackgroundTask::finished);
    Gate gate;
    std::vector<int> results;
    QVERIFY(task.start(
        [&gate](const tb::StopToken& stop) {
          (void)gate.hold(stop);
          gate.returned = true;
          return 1;
        },
        [&results](int value) { results.push_back(value); }));
    QVERIFY(task.start([] { return 2; }, [&results](int value) { results.push_back(value); }));
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results, std::vector<int>{2});

    // The old run saw its token stopped and returned; its result, queued
    // after that, is dropped when the events are processed.
    QTRY_VERIFY_WITH_TIMEOUT(gate.returned.load(), kWaitMs);
    QVERIFY(gate.sawStop.load());
    QCoreApplication::processEvents();
    QTest::qWait(50);
    QCOMPARE(results, std::vector<int>{2});
    QCOMPARE(finished.size(), 1);
  }

  void supersededProgressIsDropped() {
    BackgroundTask task(BackgroundTask::Policy::Supersede);
    QSignalSpy finished(&task, &BackgroundTask::finished);
    QSignalSpy progressed(&task, &BackgroundTask::progressed);
    Gate gate;
    QVERIFY(task.start(
        [&gate](const tb::StopToken& stop, const tb::ProgressFn& progress) {
          (void)gate.hold(stop);
          progress({7, 9, "old"});  // reported after it was superseded
          gate.returned = true;
          return 0;
        },
        [](int) {}));
    QVERIFY(task.start(
        [&gate](const tb::StopToken&, const tb::ProgressFn& progress) {
          // Reported only once the old run has reported, so an old report
          // that got through would be in the spy first.
          const auto deadline = std::chrono::steady_clock::now() + 10s;
          while (!gate.returned.load() && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(1ms);
          }
          progress({1, 2, "new"});
          return 0;
        },
        [](int) {}));
    QVERIFY(finished.wait(kWaitMs));
    QCoreApplication::processEvents();
    QCOMPARE(progressed.size(), 1);
    QCOMPARE(progressed.front().at(0).toLongLong(), 1);
    QCOMPARE(progressed.front().at(1).toLongLong(), 2);
    QCOMPARE(progressed.front().at(2).toString(), QStringLiteral("new"));
  }

  void debounceWaitsForQuietAndRunsOnlyTheLastStart() {
    constexpr auto kInterval = 300ms;
    BackgroundTask task(BackgroundTask::Policy::Debounce);
    task.setDebounceInterval(kInterval);
    QSignalSpy finished(&task, &BackgroundTask::finished);
    std::atomic<int> bodies{0};
    std::vector<int> results;
    const auto startWith = [&](int value) {
      return task.start(
          [&bodies, value] {
            ++bodies;
            return value;
          },
          [&results](int delivered) { results.push_back(delivered); });
    };
    QVERIFY(startWith(1));
    QVERIFY(task.isPending());
    QVERIFY(task.isBusy());
    QVERIFY(!task.isRunning());
    QTest::qWait(50);  // inside the interval
    QElapsedTimer sinceLast;
    sinceLast.start();
    QVERIFY(startWith(2));
    QVERIFY(startWith(3));
    QCOMPARE(bodies.load(), 0);
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results, std::vector<int>{3});
    QCOMPARE(bodies.load(), 1);
    QVERIFY(!task.isBusy());
    // The later starts restarted the interval; a coarse timer may fire 5% early.
    QVERIFY2(sinceLast.elapsed() >= 270, qPrintable(QString::number(sinceLast.elapsed())));
  }

  void debounceSupersedesARunningStart() {
    BackgroundTask task(BackgroundTask::Policy::Debounce);
    task.setDebounceInterval(1ms);
    QSignalSpy finished(&task, &BackgroundTask::finished);
    Gate gate;
    std::atomic<bool> started{false};
    std::vector<int> results;
    QVERIFY(task.start(
        [&](const tb::StopToken& stop) {
          started = true;
          (void)gate.hold(stop);
          gate.returned = true;
          return 1;
        },
        [&results](int value) { results.push_back(value); }));
    QTRY_VERIFY_WITH_TIMEOUT(started.load(), kWaitMs);
    QVERIFY(task.isRunning());
    QVERIFY(task.start([] { return 2; }, [&results](int value) { results.push_back(value); }));
    // The running work answers older inputs: it is stopped at once.
    QTRY_VERIFY_WITH_TIMEOUT(gate.sawStop.load(), kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(gate.returned.load(), kWaitMs);
    QTest::qWait(50);
    QCOMPARE(results, std::vector<int>{2});
    QCOMPARE(finished.size(), 1);
  }

  void cancelDeliversWhatTheStoppedWorkAnswers() {
    BackgroundTask task(BackgroundTask::Policy::Refuse);
    QSignalSpy finished(&task, &BackgroundTask::finished);
    Gate gate;
    QString answer;
    QVERIFY(task.start(
        [&gate](const tb::StopToken& stop) {
          return gate.hold(stop) ? QStringLiteral("stopped") : QStringLiteral("done");
        },
        [&answer](const QString& value) { answer = value; }));
    task.cancel();
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(answer, QStringLiteral("stopped"));
  }

  void cancelDropsAWaitingDebouncedStart() {
    BackgroundTask task(BackgroundTask::Policy::Debounce);
    task.setDebounceInterval(20ms);
    QSignalSpy finished(&task, &BackgroundTask::finished);
    std::atomic<int> bodies{0};
    QVERIFY(task.start([&bodies] { return ++bodies; }, [](int) {}));
    task.cancel();
    QVERIFY(!task.isBusy());
    QVERIFY(!finished.wait(200));
    QCOMPARE(bodies.load(), 0);
  }

  void destructionStopsAndWaitsAndDeliversNothing() {
    auto task = std::make_unique<BackgroundTask>(BackgroundTask::Policy::Supersede);
    Gate gate;
    std::atomic<bool> started{false};
    bool delivered = false;
    QVERIFY(task->start(
        [&](const tb::StopToken& stop) {
          started = true;
          (void)gate.hold(stop);
          gate.returned = true;
          return 1;
        },
        [&delivered](int) { delivered = true; }));
    QTRY_VERIFY_WITH_TIMEOUT(started.load(), kWaitMs);
    task.reset();
    QVERIFY(gate.sawStop.load());
    QVERIFY(gate.returned.load());  // waited for: nothing it captured is used later
    QCoreApplication::processEvents();
    QVERIFY(!delivered);
  }
};

QTEST_GUILESS_MAIN(BackgroundTaskTest)
#include "background_task_test.moc"
