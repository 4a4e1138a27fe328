// The Runs page driving the real `trainbench` binary (TB_TRAINBENCH_BINARY)
// in a sandboxed XDG data directory: a run that completes, one stopped, one
// out of memory, one killed, one whose binary is missing; stand-in children
// for what the engine never does (ignore SIGTERM, end on a line without a
// newline); the event loop's responsiveness during a run; the form's checks;
// and the runs table's sort.
// With TB_RUNS_SCREENSHOT_DIR set, the completed run's page and detail view
// are saved there as PNGs (that is how docs/images/runs-page.png is made).
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <chrono>
#include <csignal>
#include <cstddef>
#include <memory>
#include <source_location>

#include "plotting/line_chart.h"
#include "plotting/memory_gauge.h"
#include "ui/runs/run_charts.h"
#include "ui/runs/run_detail_view.h"
#include "ui/runs/run_form.h"
#include "ui/runs/run_history_panel.h"
#include "ui/runs/run_sort_proxy.h"
#include "ui/runs/run_table_model.h"
#include "ui/runs/runs_page.h"
#include "ui/studio_settings.h"
#include "ui_test_support.h"

using tb::runs::RunState;

namespace {

constexpr int kRunTimeoutMs = 240'000;

// Macros, not helpers: a QTRY failure must return from the test function itself.
#define TB_WAIT_FOR_RUN_END()                                                        \
  QTRY_VERIFY2_WITH_TIMEOUT(page().lastOutcome().has_value() && !page().isRunning(), \
                            "the run did not end", kRunTimeoutMs)
#define TB_WAIT_FOR_FIRST_STEP() \
  QTRY_VERIFY_WITH_TIMEOUT(progressBar()->value() > 0 || page().lastOutcome(), kRunTimeoutMs)

QString stateName(RunState state) { return tb::ui::toQString(tb::runs::toString(state)); }

/// A shell script standing in for `trainbench` in `dir`; empty when it cannot be written.
QString writeFakeTrainbench(const QTemporaryDir& dir, const char* body) {
  const QString path = dir.filePath(QStringLiteral("trainbench"));
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
  file.write("#!/bin/sh\n");
  file.write(body);
  file.close();
  if (!file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                           QFileDevice::ExeOwner)) {
    return {};
  }
  return path;
}

tb::runs::RunRecord record(const char* id, double tokensPerSecond, std::optional<double> loss) {
  tb::runs::RunRecord run;
  run.id = id;
  run.dir = std::string("/store/") + id;
  run.model = "tiny";
  run.state = loss ? RunState::Completed : RunState::Oom;
  run.tokensPerSecond = tokensPerSecond;
  run.lossLast = loss;
  return run;
}

}  // namespace

class RunsPageTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;
  tb::ui::StudioSettings settings_;
  std::unique_ptr<tb::ui::RunsPage> page_;

  tb::ui::RunsPage& page() { return *page_; }

  template <class T>
  T* widget(const char* name, const std::source_location& where = std::source_location::current()) {
    return tb::ui::test::child<T>(page_.get(), name, where);
  }
  tb::ui::RunForm& form() { return *widget<tb::ui::RunForm>("runForm"); }
  QPushButton* startButton() { return widget<QPushButton>("runStart"); }
  QPushButton* stopButton() { return widget<QPushButton>("runStop"); }
  QProgressBar* progressBar() { return widget<QProgressBar>("runProgress"); }
  QLabel* outcomeLabel() { return widget<QLabel>("runOutcome"); }
  /// A chart of the live tab: the detail view's charts carry the same names.
  template <class T>
  T* liveChart(const char* name) {
    return tb::ui::test::child<T>(widget<tb::ui::RunCharts>("liveCharts"), name);
  }

  void makePage() {
    page_ = std::make_unique<tb::ui::RunsPage>(settings_);
    page_->resize(1400, 900);
    page_->show();
    form().setPreset(QStringLiteral("tiny"));
    form().setThreads(1);
  }

 private Q_SLOTS:
  void initTestCase() {
    qputenv("XDG_DATA_HOME", QDir(sandbox_.home()).filePath(QStringLiteral("data")).toLocal8Bit());
    qputenv("TRAINBENCH_BINARY", QByteArrayLiteral(TB_TRAINBENCH_BINARY));
  }

  void init() {
    qputenv("TRAINBENCH_BINARY", QByteArrayLiteral(TB_TRAINBENCH_BINARY));
    tb::ui::test::clearStudioSettings();  // the form remembers the last test's choices
    makePage();
  }

  void cleanup() { page_.reset(); }

  void tinyRunCompletesWithCurvesAndIsListed() {
    form().setSteps(30);
    // Before any run the charts say what they will show, with no scales.
    for (const char* name : {"lossChart", "throughputChart"}) {
      QVERIFY2(liveChart<tb::plotting::LineChart>(name)->showsEmptyMessage(), name);
    }
    QVERIFY(liveChart<tb::plotting::MemoryGauge>("memoryGauge")->showsEmptyMessage());
    QVERIFY(startButton()->isEnabled());
    QTest::mouseClick(startButton(), Qt::LeftButton);
    QVERIFY(page().isRunning());
    QVERIFY(stopButton()->isEnabled());
    QVERIFY(!startButton()->isEnabled());
    TB_WAIT_FOR_RUN_END();
    const tb::ui::RunOutcome& outcome = *page().lastOutcome();
    QCOMPARE(stateName(outcome.state), QStringLiteral("completed"));
    QCOMPARE(outcome.exitCode, 0);
    QCOMPARE(progressBar()->value(), 30);
    QCOMPARE(liveChart<tb::plotting::LineChart>("lossChart")->pointCount(0), 30);
    QCOMPARE(liveChart<tb::plotting::LineChart>("throughputChart")->pointCount(0), 30);
    QVERIFY(liveChart<tb::plotting::MemoryGauge>("memoryGauge")->peakBytes() > 0);
    QCOMPARE(liveChart<tb::plotting::MemoryGauge>("memoryGauge")->rankCount(), std::size_t{0});
    QTRY_VERIFY(!liveChart<tb::plotting::LineChart>("lossChart")->showsEmptyMessage());
    QVERIFY(!liveChart<tb::plotting::MemoryGauge>("memoryGauge")->showsEmptyMessage());
    const QString log = widget<QPlainTextEdit>("runLog")->toPlainText();
    QVERIFY(log.contains(QStringLiteral("ended completed")));
    QVERIFY(startButton()->isEnabled());

    // The list refreshes by itself, selects the run and loads its curves.
    tb::ui::RunHistoryPanel& history = *widget<tb::ui::RunHistoryPanel>("runHistory");
    auto* detail = tb::ui::test::child<tb::ui::RunDetailView>(&history, "runDetail");
    QTRY_VERIFY_WITH_TIMEOUT(history.model()->rowOfDirectory(outcome.runDir) >= 0, 20'000);
    const int row = history.model()->rowOfDirectory(outcome.runDir);
    QCOMPARE(stateName(history.model()->record(row)->state), QStringLiteral("completed"));
    QCOMPARE(history.model()->record(row)->steps, 30);
    QTRY_COMPARE_WITH_TIMEOUT(detail->shownDirectory(), outcome.runDir, 20'000);
    auto* detailLoss = tb::ui::test::child<tb::plotting::LineChart>(
        tb::ui::test::child<tb::ui::RunCharts>(detail, "runDetailCharts"), "lossChart");
    QTRY_COMPARE_WITH_TIMEOUT(detailLoss->pointCount(0), 30, 20'000);

    if (const QString dir = qEnvironmentVariable("TB_RUNS_SCREENSHOT_DIR"); !dir.isEmpty()) {
      QTest::qWait(300);
      QVERIFY(page().grab().save(QDir(dir).filePath(QStringLiteral("runs-page.png"))));
      widget<QTabWidget>("runsTabs")->setCurrentIndex(1);
      QTest::qWait(300);
      QVERIFY(page().grab().save(QDir(dir).filePath(QStringLiteral("runs-detail.png"))));
    }
  }

  void twoProcessRunShowsGlobalCurvesAndEveryRanksMemory() {
    form().setSteps(20);
    form().setProcesses(2);
    const auto args = form().arguments();
    QVERIFY(args);
    QVERIFY(args->join(QLatin1Char(' ')).contains(QStringLiteral("--nproc-per-node 2")));
    page().startRun();
    TB_WAIT_FOR_RUN_END();
    const tb::ui::RunOutcome& outcome = *page().lastOutcome();
    QCOMPARE(stateName(outcome.state), QStringLiteral("completed"));
    QCOMPARE(liveChart<tb::plotting::LineChart>("lossChart")->pointCount(0), 20);
    const QString log = widget<QPlainTextEdit>("runLog")->toPlainText();
    QVERIFY2(log.contains(QStringLiteral("rank 0 of 2: completed")), qPrintable(log));
    QVERIFY2(log.contains(QStringLiteral("rank 1 of 2: completed")), qPrintable(log));
    QVERIFY(QFile::exists(QDir(outcome.runDir).filePath(QStringLiteral("ranks/1/summary.json"))));
    // Each rank's own memory, live: the launcher forwards every rank's steps.
    const auto* gauge = liveChart<tb::plotting::MemoryGauge>("memoryGauge");
    QCOMPARE(gauge->rankCount(), std::size_t{2});
    for (int rank = 0; rank < 2; ++rank) {
      QVERIFY2(gauge->rankUsage(rank) && gauge->rankUsage(rank)->peak > 0,
               qPrintable(QStringLiteral("rank %1").arg(rank)));
    }
    if (const QString dir = qEnvironmentVariable("TB_RUNS_SCREENSHOT_DIR"); !dir.isEmpty()) {
      QTest::qWait(300);
      QVERIFY(page().grab().save(QDir(dir).filePath(QStringLiteral("runs-page-2-processes.png"))));
    }

    // The stored run shows the same: every rank's memory from its own events.
    tb::ui::RunHistoryPanel& history = *widget<tb::ui::RunHistoryPanel>("runHistory");
    auto* detail = tb::ui::test::child<tb::ui::RunDetailView>(&history, "runDetail");
    QTRY_COMPARE_WITH_TIMEOUT(detail->shownDirectory(), outcome.runDir, 20'000);
    QTRY_VERIFY_WITH_TIMEOUT(!detail->isLoading(), 20'000);
    const auto* stored = tb::ui::test::child<tb::plotting::MemoryGauge>(
        tb::ui::test::child<tb::ui::RunCharts>(detail, "runDetailCharts"), "memoryGauge");
    QTRY_COMPARE_WITH_TIMEOUT(stored->rankCount(), std::size_t{2}, 20'000);
    for (int rank = 0; rank < 2; ++rank) {
      QCOMPARE(stored->rankUsage(rank)->peak, gauge->rankUsage(rank)->peak);
    }
    if (const QString dir = qEnvironmentVariable("TB_RUNS_SCREENSHOT_DIR"); !dir.isEmpty()) {
      widget<QTabWidget>("runsTabs")->setCurrentIndex(1);
      QTest::qWait(300);
      QVERIFY(
          page().grab().save(QDir(dir).filePath(QStringLiteral("runs-detail-2-processes.png"))));
    }
  }

  void stoppingATwoProcessRunStopsEveryRank() {
    form().setSteps(1'000'000);
    form().setProcesses(2);
    page().startRun();
    TB_WAIT_FOR_FIRST_STEP();
    page().stopRun();
    TB_WAIT_FOR_RUN_END();
    QCOMPARE(stateName(page().lastOutcome()->state), QStringLiteral("interrupted"));
    const QString runDir = page().lastOutcome()->runDir;
    QVERIFY(!runDir.isEmpty());
    // Rank 1 stopped before the same step, and said so in its own summary.
    QFile rankSummary(QDir(runDir).filePath(QStringLiteral("ranks/1/summary.json")));
    QTRY_VERIFY_WITH_TIMEOUT(rankSummary.exists(), 10'000);
    QVERIFY(rankSummary.open(QIODevice::ReadOnly));
    QVERIFY(rankSummary.readAll().contains("\"interrupted\""));
  }

  void eventLoopStaysResponsiveDuringARun() {
    form().setSteps(150);
    QElapsedTimer clock;
    qint64 last = 0;
    qint64 worstLateness = 0;
    qint64 worstAt = 0;
    int worstStep = 0;
    int ticks = 0;
    QTimer timer;
    timer.setTimerType(Qt::PreciseTimer);
    timer.setInterval(20);
    connect(&timer, &QTimer::timeout, this, [&] {
      const qint64 now = clock.elapsed();
      if (now - last - 20 > worstLateness) {
        worstLateness = now - last - 20;
        worstAt = now;
        worstStep = progressBar()->value();
      }
      last = now;
      ++ticks;
    });
    // Measured while the child streams events; the list refresh after it is not a run.
    connect(page_.get(), &tb::ui::RunsPage::runningChanged, &timer, [&timer](bool running) {
      if (!running) timer.stop();
    });
    page().startRun();
    clock.start();
    timer.start();
    TB_WAIT_FOR_RUN_END();
    QCOMPARE(stateName(page().lastOutcome()->state), QStringLiteral("completed"));
    QVERIFY(liveChart<tb::plotting::LineChart>("lossChart")->pointCount(0) == 150);
    QVERIFY2(ticks > 10, qPrintable(QStringLiteral("only %1 ticks").arg(ticks)));
    // A page that trained in its own thread of control would stall the loop
    // for the whole run (seconds); the bound sits well below that and well
    // above what two busy cores (the child's two threads, ctest -j2) make a
    // 20 ms timer wait, which reached 103 ms on the 2-core CI class.
    QVERIFY2(worstLateness < 750,
             qPrintable(QStringLiteral("a 20 ms timer was %1 ms late, %2 ms into the run, "
                                       "at step %3")
                            .arg(worstLateness)
                            .arg(worstAt)
                            .arg(worstStep)));
    qInfo("20 ms timer over %d ticks: worst lateness %lld ms", ticks, worstLateness);
  }

  void stopEndsTheRunAsInterrupted() {
    form().setSteps(1'000'000);
    page().startRun();
    TB_WAIT_FOR_FIRST_STEP();
    QVERIFY(page().isRunning());
    QTest::mouseClick(stopButton(), Qt::LeftButton);
    QVERIFY(!stopButton()->isEnabled());
    TB_WAIT_FOR_RUN_END();
    QCOMPARE(stateName(page().lastOutcome()->state), QStringLiteral("interrupted"));
    // The engine ended cleanly: its summary came through, not the kill fallback.
    QVERIFY(!page().lastOutcome()->message.contains(QStringLiteral("killed")));
    QVERIFY(startButton()->isEnabled());
  }

  void tooSmallBudgetEndsAsOomWithStderrTail() {
    form().setSteps(20);
    form().setMemoryBudgetMiB(1);
    page().startRun();
    TB_WAIT_FOR_RUN_END();
    const tb::ui::RunOutcome& outcome = *page().lastOutcome();
    QCOMPARE(stateName(outcome.state), QStringLiteral("oom"));
    QVERIFY2(outcome.stderrTail.contains(QStringLiteral("oom")), qPrintable(outcome.stderrTail));
    QVERIFY(outcomeLabel()->isVisible());
    QVERIFY(outcomeLabel()->text().contains(QStringLiteral("<pre>")));
    QVERIFY(startButton()->isEnabled());
  }

  void killedChildIsFailedAndThePageStaysUsable() {
    form().setSteps(1'000'000);
    page().startRun();
    TB_WAIT_FOR_FIRST_STEP();
    const qint64 pid =
        tb::ui::test::child<tb::ui::RunProcess>(page_.get(), "runProcess")->processId();
    QVERIFY(pid > 0);
    QCOMPARE(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
    TB_WAIT_FOR_RUN_END();
    QCOMPARE(stateName(page().lastOutcome()->state), QStringLiteral("failed"));
    QVERIFY(page().lastOutcome()->message.contains(QStringLiteral("crashed")));
    QVERIFY(startButton()->isEnabled());
  }

  void missingBinaryIsFailedNamingThePath() {
    qputenv("TRAINBENCH_BINARY", QByteArrayLiteral("/nonexistent/bin/trainbench"));
    form().setSteps(5);
    page().startRun();
    TB_WAIT_FOR_RUN_END();
    const tb::ui::RunOutcome& outcome = *page().lastOutcome();
    QCOMPARE(stateName(outcome.state), QStringLiteral("failed"));
    QVERIFY2(outcome.message.contains(QStringLiteral("/nonexistent/bin/trainbench")),
             qPrintable(outcome.message));
    QVERIFY(outcomeLabel()->isVisible());
    QVERIFY(startButton()->isEnabled());
  }

  void stopIgnoredByTheChildKillsItAfterTheGrace() {
    QTemporaryDir dir;
    const QString fake = writeFakeTrainbench(dir,
                                             "trap '' TERM\n"
                                             "echo 'ignoring SIGTERM' >&2\n"
                                             "exec sleep 30\n");
    QVERIFY(!fake.isEmpty());
    qputenv("TRAINBENCH_BINARY", fake.toLocal8Bit());
    auto* process = tb::ui::test::child<tb::ui::RunProcess>(page_.get(), "runProcess");
    process->setStopGrace(std::chrono::milliseconds(200));
    page().startRun();
    QVERIFY(page().isRunning());
    auto* log = widget<QPlainTextEdit>("runLog");
    // Stopped only once the trap is set, or SIGTERM would end it at once.
    QTRY_VERIFY_WITH_TIMEOUT(log->toPlainText().contains(QStringLiteral("ignoring SIGTERM")),
                             20'000);
    QElapsedTimer clock;
    clock.start();
    QTest::mouseClick(stopButton(), Qt::LeftButton);
    TB_WAIT_FOR_RUN_END();
    QVERIFY2(clock.elapsed() >= 150, qPrintable(QString::number(clock.elapsed())));
    const tb::ui::RunOutcome& outcome = *page().lastOutcome();
    QCOMPARE(stateName(outcome.state), QStringLiteral("interrupted"));
    QVERIFY2(outcome.message.contains(QStringLiteral("killed")), qPrintable(outcome.message));
    QVERIFY(outcome.runDir.isEmpty());
    QVERIFY(startButton()->isEnabled());
  }

  void endEventWithoutANewlineStillDecidesTheOutcome() {
    QTemporaryDir dir;
    const QString fake = writeFakeTrainbench(
        dir,
        "printf '%s' '{\"event\":\"end\",\"elapsed_s\":0.5,\"summary\":{\"status\":\"oom\","
        "\"message\":\"over the memory budget\",\"steps\":3}}'\n"
        "printf 'last words' >&2\n"
        "exit 1\n");
    QVERIFY(!fake.isEmpty());
    qputenv("TRAINBENCH_BINARY", fake.toLocal8Bit());
    page().startRun();
    TB_WAIT_FOR_RUN_END();
    const tb::ui::RunOutcome& outcome = *page().lastOutcome();
    QCOMPARE(stateName(outcome.state), QStringLiteral("oom"));
    QCOMPARE(outcome.message, QStringLiteral("over the memory budget"));
    QCOMPARE(outcome.exitCode, 1);
    QCOMPARE(outcome.stderrTail, QStringLiteral("last words"));
  }

  // The window survives whatever its child does: a crash, running out of
  // memory, output that is not events, a line without end (docs/RELIABILITY.md).
  void crashingChildIsFailedWithTheSignal() {
    QTemporaryDir dir;
    const QString fake = writeFakeTrainbench(dir,
                                             "echo 'about to crash' >&2\n"
                                             "kill -SEGV $$\n");
    QVERIFY(!fake.isEmpty());
    qputenv("TRAINBENCH_BINARY", fake.toLocal8Bit());
    page().startRun();
    TB_WAIT_FOR_RUN_END();
    const tb::ui::RunOutcome& outcome = *page().lastOutcome();
    QCOMPARE(stateName(outcome.state), QStringLiteral("failed"));
    QVERIFY2(outcome.message.contains(QStringLiteral("crashed")), qPrintable(outcome.message));
    QCOMPARE(outcome.stderrTail, QStringLiteral("about to crash"));
    QVERIFY(startButton()->isEnabled());
  }

  void childOutOfMemoryIsFailedWithItsLastWords() {
    // A child that runs out of address space (ulimit -v): Python's
    // MemoryError, exit 1, no summary.
    QTemporaryDir dir;
    const QString fake = writeFakeTrainbench(
        dir,
        "ulimit -v 200000\n"
        "exec python3 -c 'blocks = [bytearray(1 << 24) for _ in range(1 << 10)]'\n");
    QVERIFY(!fake.isEmpty());
    qputenv("TRAINBENCH_BINARY", fake.toLocal8Bit());
    page().startRun();
    TB_WAIT_FOR_RUN_END();
    const tb::ui::RunOutcome& outcome = *page().lastOutcome();
    QCOMPARE(stateName(outcome.state), QStringLiteral("failed"));
    QVERIFY2(outcome.message.contains(QStringLiteral("without a summary")),
             qPrintable(outcome.message));
    QVERIFY2(outcome.stderrTail.contains(QStringLiteral("MemoryError")),
             qPrintable(outcome.stderrTail));
    QVERIFY(startButton()->isEnabled());
  }

  void malformedAndEnormousOutputIsLoggedAndTheEndStillDecides() {
    // Half an event, binary junk, a 64 MiB line without end, then the end.
    QTemporaryDir dir;
    const QString fake = writeFakeTrainbench(
        dir,
        "echo '{\"event\":\"step\",'\n"
        "printf '\\001\\377\\376junk\\n'\n"
        "head -c 67108864 /dev/zero | tr '\\0' '{'\n"
        "echo\n"
        "echo '{\"event\":\"end\",\"elapsed_s\":1,\"summary\":{\"status\":\"failed\","
        "\"message\":\"gave up\",\"steps\":0}}'\n"
        "exit 1\n");
    QVERIFY(!fake.isEmpty());
    qputenv("TRAINBENCH_BINARY", fake.toLocal8Bit());
    page().startRun();
    TB_WAIT_FOR_RUN_END();
    const tb::ui::RunOutcome& outcome = *page().lastOutcome();
    QCOMPARE(stateName(outcome.state), QStringLiteral("failed"));
    QCOMPARE(outcome.message, QStringLiteral("gave up"));
    const QString log = widget<QPlainTextEdit>("runLog")->toPlainText();
    QVERIFY2(log.count(QStringLiteral("unreadable output")) >= 3, qPrintable(log.left(2000)));
    // The cut line is quoted in 200 bytes, not 64 MiB.
    QVERIFY2(log.size() < 100'000, qPrintable(QString::number(log.size())));
    QVERIFY(startButton()->isEnabled());
  }

  void formChecksRecomputeAndTakesThePolicyFromTheMemoryPage() {
    tb::ui::RunForm& form = this->form();
    form.setRecomputePolicy(QStringLiteral("layers:x"));
    QVERIFY(!form.arguments());
    const QString why = tb::ui::toQString(form.arguments().error().message);
    QVERIFY2(why.contains(QStringLiteral("layers:x")), qPrintable(why));
    QVERIFY(!startButton()->isEnabled());
    page().applyRecomputePolicy(QStringLiteral("layers:2"), QStringLiteral("stock"));
    QCOMPARE(widget<QComboBox>("runRecompute")->currentText(), QStringLiteral("layers:2"));
    auto args = form.arguments();
    QVERIFY(args);
    QVERIFY(args->join(QLatin1Char(' ')).contains(QStringLiteral("--recompute layers:2")));
    QVERIFY(args->join(QLatin1Char(' ')).contains(QStringLiteral("--runtime stock")));
    QVERIFY(startButton()->isEnabled());
  }

  void everyPolicyThePlannerProposesIsTakenAndRuns() {
    // The engine profile's planner answers with any of these kinds.
    const QStringList planned = {QStringLiteral("none"),
                                 QStringLiteral("selective"),
                                 QStringLiteral("selective:core_attn,layernorm,mlp_act,head"),
                                 QStringLiteral("full"),
                                 QStringLiteral("layers:2"),
                                 QStringLiteral("layers:1+selective:core_attn,mlp_act")};
    for (const QString& policy : planned) {
      QVERIFY2(page().applyRecomputePolicy(policy), qPrintable(policy));
      const auto args = form().arguments();
      QVERIFY2(args, qPrintable(policy));
      QVERIFY2(args->join(QLatin1Char(' ')).contains(QStringLiteral("--recompute ") + policy),
               qPrintable(args->join(QLatin1Char(' '))));
    }
    // A framework's own plan is not the engine's: refused, the form unchanged.
    for (const char* framework : {"op", "every:2", "uniform:3", "torchtitan:op"}) {
      QVERIFY2(!page().applyRecomputePolicy(QLatin1String(framework)), framework);
      QCOMPARE(form().recomputePolicy(), planned.back());
      const QString said = widget<QLabel>("runStatus")->text();
      QVERIFY2(said.contains(QLatin1String(framework)), qPrintable(said));
    }
    // Typed into the field, the engine's grammar refuses it too, by name.
    form().setRecomputePolicy(QStringLiteral("every:2"));
    QVERIFY(!form().arguments());
    QVERIFY(
        tb::ui::toQString(form().arguments().error().message).contains(QStringLiteral("every:2")));

    // The richest kind trains to the end.
    QVERIFY(page().applyRecomputePolicy(planned.back()));
    form().setSteps(4);
    QTest::mouseClick(startButton(), Qt::LeftButton);
    TB_WAIT_FOR_RUN_END();
    QCOMPARE(stateName(page().lastOutcome()->state), QStringLiteral("completed"));
    QVERIFY(widget<QPlainTextEdit>("runLog")->toPlainText().contains(
        QStringLiteral("layers:1+selective:core_attn,mlp_act")));
  }

  void editedShapeBecomesOverrideFlags() {
    tb::ui::RunForm& form = this->form();
    form.setMemoryBudgetMiB(64);
    auto plain = form.arguments();
    QVERIFY(plain);
    QVERIFY(!plain->contains(QStringLiteral("--dim")));
    QVERIFY(plain->join(QLatin1Char(' ')).contains(QStringLiteral("--memory-budget 67108864")));
    widget<QSpinBox>("runShape1")->setValue(96);  // width D
    auto overridden = form.arguments();
    QVERIFY(overridden);
    QVERIFY(overridden->join(QLatin1Char(' ')).contains(QStringLiteral("--dim 96")));
    widget<QSpinBox>("runShape3")->setValue(5);  // heads no longer divide the width
    QVERIFY(!form.arguments());
    QVERIFY(!startButton()->isEnabled());
  }

  void runsTableSortsByValueWithMissingLast() {
    tb::ui::RunTableModel model;
    tb::ui::RunSortProxy proxy;
    proxy.setSourceModel(&model);
    std::vector<tb::runs::RunRecord> records;
    records.push_back(record("a", 9'500.0, 3.2));
    records.push_back(record("b", 10'000.0, std::nullopt));
    records.push_back(record("c", 800.0, 2.5));
    model.setRecords(std::move(records));
    const auto idAt = [&](int row) {
      return model.record(proxy.mapToSource(proxy.index(row, 0)).row())->id;
    };
    proxy.sort(tb::ui::RunTableModel::TokensPerSecond, Qt::DescendingOrder);
    QCOMPARE(idAt(0), std::string("b"));
    QCOMPARE(idAt(2), std::string("c"));
    proxy.sort(tb::ui::RunTableModel::TokensPerSecond, Qt::AscendingOrder);
    QCOMPARE(idAt(0), std::string("c"));
    QCOMPARE(idAt(1), std::string("a"));
    // The oom run has no loss: last in both orders.
    proxy.sort(tb::ui::RunTableModel::LossLast, Qt::AscendingOrder);
    QCOMPARE(idAt(0), std::string("c"));
    QCOMPARE(idAt(2), std::string("b"));
    proxy.sort(tb::ui::RunTableModel::LossLast, Qt::DescendingOrder);
    QCOMPARE(idAt(0), std::string("a"));
    QCOMPARE(idAt(2), std::string("b"));
    proxy.setFilterRegularExpression(QStringLiteral("oom"));
    QCOMPARE(proxy.rowCount(), 1);
  }
};

TB_UI_TEST_MAIN(RunsPageTest)
#include "runs_page_test.moc"
