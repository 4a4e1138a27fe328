// The Runs page driving the real `trainbench` binary (TB_TRAINBENCH_BINARY)
// in a sandboxed XDG data directory: a run that completes, one stopped, one
// out of memory, one killed, one whose binary is missing; the event loop's
// responsiveness during a run; the form's checks; and the runs table's sort.
// With TB_RUNS_SCREENSHOT_DIR set, the completed run's page and detail view
// are saved there as PNGs (that is how docs/images/runs-page.png is made).
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTimer>

#include <csignal>
#include <memory>

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
#define TB_WAIT_FOR_RUN_END()                                                             \
  QTRY_VERIFY2_WITH_TIMEOUT(page().lastOutcome().has_value() && !page().isRunning(),      \
                            "the run did not end", kRunTimeoutMs)
#define TB_WAIT_FOR_FIRST_STEP() \
  QTRY_VERIFY_WITH_TIMEOUT(page().progressBar()->value() > 0 || page().lastOutcome(), kRunTimeoutMs)

QString stateName(RunState state) { return tb::ui::toQString(tb::runs::toString(state)); }

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

  void makePage() {
    page_ = std::make_unique<tb::ui::RunsPage>(settings_);
    page_->resize(1400, 900);
    page_->show();
    page().form()->setPreset(QStringLiteral("tiny"));
    page().form()->setThreads(1);
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
    page().form()->setSteps(30);
    QVERIFY(page().startButton()->isEnabled());
    QTest::mouseClick(page().startButton(), Qt::LeftButton);
    QVERIFY(page().isRunning());
    QVERIFY(page().stopButton()->isEnabled());
    QVERIFY(!page().startButton()->isEnabled());
    TB_WAIT_FOR_RUN_END();
    const tb::ui::RunOutcome& outcome = *page().lastOutcome();
    QCOMPARE(stateName(outcome.state), QStringLiteral("completed"));
    QCOMPARE(outcome.exitCode, 0);
    QCOMPARE(page().progressBar()->value(), 30);
    QCOMPARE(page().liveCharts()->lossChart()->pointCount(0), 30);
    QCOMPARE(page().liveCharts()->throughputChart()->pointCount(0), 30);
    QVERIFY(page().liveCharts()->memoryGauge()->peakBytes() > 0);
    QVERIFY(page().logPane()->toPlainText().contains(QStringLiteral("ended completed")));
    QVERIFY(page().startButton()->isEnabled());

    // The list refreshes by itself, selects the run and loads its curves.
    tb::ui::RunHistoryPanel& history = *page().history();
    QTRY_VERIFY_WITH_TIMEOUT(history.model()->rowOfDirectory(outcome.runDir) >= 0, 20'000);
    const int row = history.model()->rowOfDirectory(outcome.runDir);
    QCOMPARE(stateName(history.model()->record(row)->state), QStringLiteral("completed"));
    QCOMPARE(history.model()->record(row)->steps, 30);
    QTRY_COMPARE_WITH_TIMEOUT(history.detail()->shownDirectory(), outcome.runDir, 20'000);
    QTRY_COMPARE_WITH_TIMEOUT(history.detail()->charts()->lossChart()->pointCount(0), 30, 20'000);

    if (const QString dir = qEnvironmentVariable("TB_RUNS_SCREENSHOT_DIR"); !dir.isEmpty()) {
      QTest::qWait(300);
      QVERIFY(page().grab().save(QDir(dir).filePath(QStringLiteral("runs-page.png"))));
      page().tabs()->setCurrentIndex(1);
      QTest::qWait(300);
      QVERIFY(page().grab().save(QDir(dir).filePath(QStringLiteral("runs-detail.png"))));
    }
  }

  void eventLoopStaysResponsiveDuringARun() {
    page().form()->setSteps(150);
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
        worstStep = page().progressBar()->value();
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
    QVERIFY(page().liveCharts()->lossChart()->pointCount(0) == 150);
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
    page().form()->setSteps(1'000'000);
    page().startRun();
    TB_WAIT_FOR_FIRST_STEP();
    QVERIFY(page().isRunning());
    QTest::mouseClick(page().stopButton(), Qt::LeftButton);
    QVERIFY(!page().stopButton()->isEnabled());
    TB_WAIT_FOR_RUN_END();
    QCOMPARE(stateName(page().lastOutcome()->state), QStringLiteral("interrupted"));
    // The engine ended cleanly: its summary came through, not the kill fallback.
    QVERIFY(!page().lastOutcome()->message.contains(QStringLiteral("killed")));
    QVERIFY(page().startButton()->isEnabled());
  }

  void tooSmallBudgetEndsAsOomWithStderrTail() {
    page().form()->setSteps(20);
    page().form()->setMemoryBudgetMiB(1);
    page().startRun();
    TB_WAIT_FOR_RUN_END();
    const tb::ui::RunOutcome& outcome = *page().lastOutcome();
    QCOMPARE(stateName(outcome.state), QStringLiteral("oom"));
    QVERIFY2(outcome.stderrTail.contains(QStringLiteral("oom")), qPrintable(outcome.stderrTail));
    QVERIFY(page().outcomeLabel()->isVisible());
    QVERIFY(page().outcomeLabel()->text().contains(QStringLiteral("<pre>")));
    QVERIFY(page().startButton()->isEnabled());
  }

  void killedChildIsFailedAndThePageStaysUsable() {
    page().form()->setSteps(1'000'000);
    page().startRun();
    TB_WAIT_FOR_FIRST_STEP();
    const qint64 pid = page().process()->processId();
    QVERIFY(pid > 0);
    QCOMPARE(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
    TB_WAIT_FOR_RUN_END();
    QCOMPARE(stateName(page().lastOutcome()->state), QStringLiteral("failed"));
    QVERIFY(page().lastOutcome()->message.contains(QStringLiteral("crashed")));
    QVERIFY(page().startButton()->isEnabled());
  }

  void missingBinaryIsFailedNamingThePath() {
    qputenv("TRAINBENCH_BINARY", QByteArrayLiteral("/nonexistent/bin/trainbench"));
    page().form()->setSteps(5);
    page().startRun();
    TB_WAIT_FOR_RUN_END();
    const tb::ui::RunOutcome& outcome = *page().lastOutcome();
    QCOMPARE(stateName(outcome.state), QStringLiteral("failed"));
    QVERIFY2(outcome.message.contains(QStringLiteral("/nonexistent/bin/trainbench")),
             qPrintable(outcome.message));
    QVERIFY(page().outcomeLabel()->isVisible());
    QVERIFY(page().startButton()->isEnabled());
  }

  void formChecksRecomputeAndTakesThePolicyFromTheMemoryPage() {
    tb::ui::RunForm& form = *page().form();
    form.setRecomputePolicy(QStringLiteral("layers:x"));
    QVERIFY(!form.arguments());
    const QString why = tb::ui::toQString(form.arguments().error().message);
    QVERIFY2(why.contains(QStringLiteral("layers:x")), qPrintable(why));
    QVERIFY(!page().startButton()->isEnabled());
    page().applyRecomputePolicy(QStringLiteral("layers:2"), QStringLiteral("stock"));
    QCOMPARE(form.recomputeCombo()->currentText(), QStringLiteral("layers:2"));
    auto args = form.arguments();
    QVERIFY(args);
    QVERIFY(args->join(QLatin1Char(' ')).contains(QStringLiteral("--recompute layers:2")));
    QVERIFY(args->join(QLatin1Char(' ')).contains(QStringLiteral("--runtime stock")));
    QVERIFY(page().startButton()->isEnabled());
  }

  void editedShapeBecomesOverrideFlags() {
    tb::ui::RunForm& form = *page().form();
    form.setMemoryBudgetMiB(64);
    auto plain = form.arguments();
    QVERIFY(plain);
    QVERIFY(!plain->contains(QStringLiteral("--dim")));
    QVERIFY(plain->join(QLatin1Char(' ')).contains(QStringLiteral("--memory-budget 67108864")));
    form.shapeSpin(1)->setValue(96);  // width D
    auto overridden = form.arguments();
    QVERIFY(overridden);
    QVERIFY(overridden->join(QLatin1Char(' ')).contains(QStringLiteral("--dim 96")));
    form.shapeSpin(3)->setValue(5);  // heads no longer divide the width
    QVERIFY(!form.arguments());
    QVERIFY(!page().startButton()->isEnabled());
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
