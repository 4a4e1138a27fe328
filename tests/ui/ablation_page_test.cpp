// The Ablation page: a results fixture loaded into the table and the four
// charts (speedup over Base, the normalised/absolute toggle), a cluster file
// beside it, a bad cluster file refused with its line and field, sources
// switched off and remembered; the run panel following a recorded event
// stream (tests/ui/data/benchmark-events.jsonl) played by a stand-in
// `trainbench`, whole and cut off mid-run, and not moved by the text the
// benchmark prints for people; the results file the events name; and a real
// `trainbench benchmark` child (TB_TRAINBENCH_BINARY) run from the page,
// cancelled with its finished runs kept, and a missing binary failing cleanly.
// With TB_ABLATION_SCREENSHOT_DIR set, the page after the real run, with the
// cluster fixture imported too, is saved there as ablation-page.png.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QList>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStringList>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <vector>

#include "tb/runs/benchmark_event.hpp"
#include "ui/ablation/ablation_run_panel.h"
#include "ui/ablation/ablation_source_model.h"
#include "ui/ablation/benchmark_process.h"
#include "ablation_page_fixture.h"

using tb::ui::AblationTableModel;
using tb::ui::test::benchData;
using tb::ui::test::cell;
using tb::ui::test::rowOf;

namespace {

constexpr int kBenchmarkTimeoutMs = 300'000;
// A stand-in child answers at once; this only bounds a broken one.
constexpr int kFakeTimeoutMs = 20'000;

/// A shell script standing in for `trainbench` in `dir`; empty when it cannot be written.
QString writeFakeTrainbench(const QTemporaryDir& dir, const QString& body) {
  const QString path = dir.filePath(QStringLiteral("trainbench"));
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
  file.write("#!/bin/sh\n");
  file.write(body.toUtf8());
  file.close();
  if (!file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                           QFileDevice::ExeOwner)) {
    return {};
  }
  return path;
}

/// The recorded `trainbench benchmark --events -` stream of a 4-run ablation
/// (1 repeat, 10 steps) in which AC2 ran out of memory.
QString recordedEvents() {
  return tb::ui::test::testDataFile(QStringLiteral("benchmark-events.jsonl"));
}

/// Everything the run panel shows of a benchmark's progress.
struct PanelState {
  QStringList runs;  ///< the table's "Runs" column
  int runsDone = 0;
  int runsTotal = 0;
  int step = 0;
  int steps = 0;
  QString stepText;
  QString status;

  friend bool operator==(const PanelState&, const PanelState&) = default;
};

}  // namespace

class AblationPageTest : public QObject, private tb::ui::test::AblationPageFixture {
  Q_OBJECT

 private:
  /// The run panel's "Runs" cell of the configuration at chain position `row`.
  QString runsCell(int row) {
    return widget<QTableWidget>("ablationRunTable")->item(row, 1)->text();
  }

  PanelState panelState() {
    PanelState state;
    for (int row = 0; row < 4; ++row) state.runs << runsCell(row);
    const auto* runs = widget<QProgressBar>("ablationProgress");
    state.runsDone = runs->value();
    state.runsTotal = runs->maximum();
    const auto* steps = widget<QProgressBar>("ablationStepProgress");
    state.step = steps->value();
    state.steps = steps->maximum();
    state.stepText = steps->text();
    state.status = widget<QLabel>("ablationRunStatus")->text();
    return state;
  }

  QString runLog() { return widget<QPlainTextEdit>("ablationRunLog")->toPlainText(); }

  void setForm(const char* model, int repeats, int steps) {
    widget<QComboBox>("ablationModel")->setCurrentText(QString::fromLatin1(model));
    widget<QSpinBox>("ablationRepeats")->setValue(repeats);
    widget<QSpinBox>("ablationSteps")->setValue(steps);
  }

 private Q_SLOTS:
  void initTestCase() { useSandboxDataHome(); }

  void init() {
    qputenv("TRAINBENCH_BINARY", QByteArrayLiteral(TB_TRAINBENCH_BINARY));
    tb::ui::test::clearStudioSettings();
    makePage();
  }

  void cleanup() { page_.reset(); }

  void resultsFixtureFillsTableAndCharts() {
    QVERIFY(page().results().configurations.empty());
    QVERIFY(!throughputChart()->hasResults());
    const tb::Status loaded = page().addResultsFile(benchData("results-fixture.json"));
    QVERIFY2(loaded.ok(), loaded ? "" : loaded.error().message.c_str());
    const AblationTableModel& model = *page().tableModel();
    QCOMPARE(model.rowCount(), 4);
    const QStringList chain = {QStringLiteral("Base"), QStringLiteral("AC2"),
                               QStringLiteral("AC2+CompilerOpt"),
                               QStringLiteral("AC2+CompilerOpt+CkptOpt")};
    for (int row = 0; row < 4; ++row) {
      QCOMPARE(cell(model, row, AblationTableModel::Configuration), chain[row]);
      QCOMPARE(cell(model, row, AblationTableModel::Source), QStringLiteral("engine"));
    }
    QCOMPARE(cell(model, 0, AblationTableModel::Speedup), QStringLiteral("1.00\u00d7"));
    // AC2's median 530 over Base's 410.
    QCOMPARE(cell(model, 1, AblationTableModel::Speedup), QStringLiteral("1.29\u00d7"));
    QVERIFY(cell(model, 0, AblationTableModel::Throughput).startsWith(QStringLiteral("410 [402")));
    QVERIFY(widget<QLabel>("ablationSummary")->text().contains(QStringLiteral("small")));

    // The four charts draw the same four configurations.
    const auto& bars = throughputChart()->bars();
    QCOMPARE(bars.size(), 4);
    QCOMPARE(bars[0].label, QStringLiteral("Base"));
    QCOMPARE(bars[0].value, 1.0);
    QVERIFY(bars[3].value > 1.0);
    QCOMPARE(widget<tb::plotting::PeakMemoryChart>("ablationPeakChart")->bars().size(), 4);
    QCOMPARE(widget<tb::plotting::StepTimeChart>("ablationStepTimeChart")->boxes().size(), 4);
    QCOMPARE(widget<tb::plotting::LossCurvesChart>("ablationLossChart")->curveNames().size(), 4);

    // The toggle switches the throughput chart to absolute tokens/s.
    QVERIFY(widget<QCheckBox>("ablationNormalised")->isChecked());
    widget<QCheckBox>("ablationNormalised")->setChecked(false);
    QVERIFY(!throughputChart()->isNormalised());
    QCOMPARE(throughputChart()->bars()[0].value, 410.0);
  }

  void partialResultsAreSaidFirstInTheSummary() {
    auto results = tb::bench::loadResults(benchData("results-fixture.json").toStdString());
    QVERIFY(results.ok());
    results->complete = false;
    results->plannedRuns = 12;
    results->completedRuns = 7;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("results.json"));
    QVERIFY(tb::bench::saveResults(path.toStdString(), *results).ok());
    QVERIFY(page().addResultsFile(path).ok());
    QVERIFY2(widget<QLabel>("ablationSummary")
                 ->text()
                 .contains(QStringLiteral("<b>\u26a0 partial: 7 of 12 runs completed</b>")),
             qPrintable(widget<QLabel>("ablationSummary")->text()));
    QVERIFY(widget<QLabel>("ablationSummary")->text().contains(QStringLiteral("small")));
    // A complete file carries no such note.
    page().sourceModel()->removeSource(0);
    QVERIFY(page().addResultsFile(benchData("results-fixture.json")).ok());
    QVERIFY(!widget<QLabel>("ablationSummary")->text().contains(QStringLiteral("partial")));
  }

  void clusterFileSitsBesideEngineResults() {
    QVERIFY(page().addResultsFile(benchData("results-fixture.json")).ok());
    QVERIFY(page().importClusterFile(benchData("cluster-good.csv")).ok());
    const AblationTableModel& model = *page().tableModel();
    QCOMPARE(model.rowCount(), 8);
    const int clusterBase = rowOf(model, "Base", "cluster");
    const int clusterLast = rowOf(model, "AC2+CompilerOpt+CkptOpt", "cluster");
    QVERIFY(clusterBase >= 0 && clusterLast >= 0);
    // Each source has its own Base: 1.00 for the cluster's, (4680 / 3075) for its last step.
    QCOMPARE(cell(model, clusterBase, AblationTableModel::Speedup), QStringLiteral("1.00\u00d7"));
    QCOMPARE(cell(model, clusterLast, AblationTableModel::Speedup), QStringLiteral("1.52\u00d7"));
    QVERIFY(cell(model, clusterBase, AblationTableModel::Source).contains(QStringLiteral("8")));
    QCOMPARE(throughputChart()->bars().size(), 8);
    QCOMPARE(throughputChart()->seriesNames().size(), 2);
    QCOMPARE(page().sourceModel()->rowCount(), 2);
  }

  void badClusterFileIsRefusedWithLineAndField() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.csv"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(
        "label,model,gpus,tokens_per_s_per_gpu\n"
        "Base,llama3-8b,8,3100\n"
        "AC2,llama3-8b,eight,3400\n");
    file.close();
    const tb::Status imported = page().importClusterFile(path);
    QVERIFY(!imported.ok());
    QCOMPARE(page().sourceModel()->rowCount(), 0);
    const QString message = widget<QLabel>("ablationMessage")->text();
    QVERIFY(widget<QLabel>("ablationMessage")->isVisible());
    QVERIFY2(message.contains(QStringLiteral("runs.csv:3")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("gpus")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("eight")), qPrintable(message));
    // A good file afterwards clears the message.
    QVERIFY(page().importClusterFile(benchData("cluster-good.json")).ok());
    QVERIFY(!widget<QLabel>("ablationMessage")->isVisible());
  }

  void untickedSourceIsLeftOut() {
    QVERIFY(page().addResultsFile(benchData("results-fixture.json")).ok());
    QVERIFY(page().importClusterFile(benchData("cluster-good.json")).ok());
    QCOMPARE(page().tableModel()->rowCount(), 8);
    tb::ui::AblationSourceModel& sources = *page().sourceModel();
    QVERIFY(sources.setData(sources.index(0, 0), Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(page().tableModel()->rowCount(), 4);
    QCOMPARE(page().tableModel()->row(0)->source, std::string("cluster"));
    QCOMPARE(throughputChart()->bars().size(), 4);
  }

  void sourcesAndFormAreRemembered() {
    QVERIFY(page().addResultsFile(benchData("results-fixture.json")).ok());
    QVERIFY(page().importClusterFile(benchData("cluster-good.csv")).ok());
    widget<QSpinBox>("ablationRepeats")->setValue(2);
    widget<QCheckBox>("ablationNormalised")->setChecked(false);
    makePage();
    QCOMPARE(page().sourceModel()->rowCount(), 2);
    QCOMPARE(page().tableModel()->rowCount(), 8);
    QVERIFY(!widget<QCheckBox>("ablationNormalised")->isChecked());
    QVERIFY(!throughputChart()->isNormalised());

    // A screenshot run (read-only settings) restores but never writes.
    makePage(tb::ui::SettingsAccess::ReadOnly);
    QCOMPARE(page().sourceModel()->rowCount(), 2);
    page().sourceModel()->removeSource(0);
    makePage();
    QCOMPARE(page().sourceModel()->rowCount(), 2);
  }

  void recordedEventStreamDrivesThePanel() {
    QTemporaryDir dir;
    const QString argsFile = dir.filePath(QStringLiteral("args"));
    // Plays the recording and leaves a results file where --out points, as
    // the real command does; the recording's own paths (/x/...) do not exist.
    const QString fake = writeFakeTrainbench(
        dir, QStringLiteral("printf '%s\\n' \"$@\" > '%1'\n"
                            "out=\n"
                            "while [ $# -gt 0 ]; do\n"
                            "  if [ \"$1\" = --out ]; then out=$2; fi\n"
                            "  shift\n"
                            "done\n"
                            "cp '%2' \"$out/results.json\" || exit 1\n"
                            "cat '%3'\n")
                 .arg(argsFile, benchData("results-fixture.json"), recordedEvents()));
    QVERIFY(!fake.isEmpty());
    qputenv("TRAINBENCH_BINARY", fake.toLocal8Bit());
    setForm("tiny", 1, 10);
    QTest::mouseClick(widget<QPushButton>("ablationRun"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!page().isBenchmarkRunning() && page().lastBenchmark().exitCode != -1,
                             kFakeTimeoutMs);
    const tb::ui::BenchmarkOutcome& outcome = page().lastBenchmark();
    QVERIFY2(outcome.message.isEmpty(), qPrintable(outcome.message));
    QCOMPARE(outcome.exitCode, 0);
    QVERIFY2(outcome.resultsPath.startsWith(tb::ui::defaultBenchmarksFolder()),
             qPrintable(outcome.resultsPath));

    // The page asked for events on stdout.
    QFile args(argsFile);
    QVERIFY(args.open(QIODevice::ReadOnly));
    const QByteArray given = args.readAll();
    QVERIFY2(given.contains("\n--events\n-\n"), given.constData());

    // Every run ended; the one that ran out of memory says so.
    const auto* runs = widget<QProgressBar>("ablationProgress");
    QCOMPARE(runs->maximum(), 4);
    QCOMPARE(runs->value(), 4);
    QCOMPARE(runsCell(0), QStringLiteral("1 of 1"));
    QCOMPARE(runsCell(1), QStringLiteral("1 of 1 \u00b7 oom"));
    QCOMPARE(runsCell(2), QStringLiteral("1 of 1"));
    QCOMPARE(runsCell(3), QStringLiteral("1 of 1"));
    QCOMPARE(widget<QTableWidget>("ablationRunTable")->item(1, 1)->toolTip(),
             QStringLiteral("repeat 1: oom"));
    // Events are read, not shown as text.
    QVERIFY2(!runLog().contains(QStringLiteral("run_step")), qPrintable(runLog()));
    QVERIFY2(!runLog().contains(QStringLiteral("unreadable")), qPrintable(runLog()));
    QVERIFY(widget<QLabel>("ablationRunStatus")->text().startsWith(QStringLiteral("Finished")));
    QCOMPARE(page().sourceModel()->rowCount(), 1);
    QVERIFY(widget<QPushButton>("ablationRun")->isEnabled());
  }

  void eventsMoveTheBarsAsTheyArrive() {
    QTemporaryDir dir;
    // The plan, Base's start and its step 3, then a run that goes on.
    const QString fake = writeFakeTrainbench(
        dir, QStringLiteral("head -n 3 '%1'\nexec sleep 30\n").arg(recordedEvents()));
    QVERIFY(!fake.isEmpty());
    qputenv("TRAINBENCH_BINARY", fake.toLocal8Bit());
    setForm("tiny", 3, 10);  // the plan's one repeat wins over the form's three
    page().startBenchmark();
    const auto* steps = widget<QProgressBar>("ablationStepProgress");
    QTRY_COMPARE_WITH_TIMEOUT(steps->value(), 3, kFakeTimeoutMs);
    QCOMPARE(steps->maximum(), 10);
    QCOMPARE(steps->text(), QStringLiteral("step 3 of 10"));
    const auto* runs = widget<QProgressBar>("ablationProgress");
    QCOMPARE(runs->maximum(), 4);
    QCOMPARE(runs->value(), 0);
    QCOMPARE(runsCell(0), QStringLiteral("0 of 1 \u00b7 running"));
    for (int row = 1; row < 4; ++row) QCOMPARE(runsCell(row), QStringLiteral("0 of 1"));
    const QString status = widget<QLabel>("ablationRunStatus")->text();
    QVERIFY2(status.contains(QStringLiteral("Base, repeat 1 (run 1 of 4)")), qPrintable(status));

    QTest::mouseClick(widget<QPushButton>("ablationCancel"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!page().isBenchmarkRunning() && page().lastBenchmark().exitCode != -1,
                             kFakeTimeoutMs);
    QVERIFY(page().lastBenchmark().cancelled);
    QVERIFY(widget<QLabel>("ablationRunStatus")->text().contains(QStringLiteral("Cancelled")));
    QCOMPARE(runsCell(0), QStringLiteral("0 of 1"));
    QCOMPARE(steps->text(), tb::ui::AblationRunPanel::idleStepText());
  }

  void textForPeopleChangesNothingInThePanel() {
    QTemporaryDir dir;
    // What the command prints for people, on stderr and (wrongly) on stdout,
    // worded as a regular-expression reader of it would have taken for runs.
    const QString fake = writeFakeTrainbench(
        dir, QStringLiteral(
                 "echo 'Ablation of tiny: 4 runs (1 repeat of 4 configurations), 10 steps' >&2\n"
                 "printf '[1/4] Base repeat 1: ok, 530 tokens/s\\n' >&2\n"
                 "printf '[2/4] AC2 repeat 1: oom\\n' >&2\n"
                 "printf '[3/4] AC2+CompilerOpt repeat 1 step 7/10\\r' >&2\n"
                 "printf 'Running AC2+CompilerOpt+CkptOpt, run 4 of 4\\n' >&2\n"
                 "echo '[4/4] Base repeat 1: ok'\n"
                 "echo 'the text is over' >&2\n"
                 "exec sleep 30\n"));
    QVERIFY(!fake.isEmpty());
    qputenv("TRAINBENCH_BINARY", fake.toLocal8Bit());
    setForm("tiny", 1, 10);
    page().startBenchmark();
    QVERIFY(page().isBenchmarkRunning());
    const PanelState before = panelState();
    // The two pipes are read in either order: wait for the last line of each.
    QTRY_VERIFY_WITH_TIMEOUT(runLog().contains(QStringLiteral("the text is over")) &&
                                 runLog().contains(QStringLiteral("[4/4] Base repeat 1: ok")),
                             kFakeTimeoutMs);
    QVERIFY2(panelState() == before, qPrintable(panelState().runs.join(QStringLiteral(" | ")) +
                                                QStringLiteral(" / ") + panelState().status));
    // The lines reached the log, and the one on stdout is named as not an event.
    QVERIFY(runLog().contains(QStringLiteral("[2/4] AC2 repeat 1: oom")));
    QVERIFY(runLog().contains(QStringLiteral("[3/4] AC2+CompilerOpt repeat 1 step 7/10")));
    QVERIFY2(runLog().contains(QStringLiteral("unreadable output")), qPrintable(runLog()));

    page().cancelBenchmark();
    QTRY_VERIFY_WITH_TIMEOUT(!page().isBenchmarkRunning() && page().lastBenchmark().exitCode != -1,
                             kFakeTimeoutMs);
    QVERIFY(page().lastBenchmark().cancelled);
  }

  void resultsFileNamedByTheEventsIsTheOneLoaded() {
    QTemporaryDir dir;
    const QString fixture = benchData("results-fixture.json");
    const QString fake = writeFakeTrainbench(
        dir, QStringLiteral("printf '%s\\n' '{\"event\":\"summary\",\"elapsed_s\":1.5,"
                            "\"finished_runs\":4,\"failed_runs\":0,\"stopped\":false,"
                            "\"results\":\"%1\"}'\n")
                 .arg(fixture));
    QVERIFY(!fake.isEmpty());
    tb::ui::BenchmarkProcess process;
    std::vector<tb::ui::BenchmarkOutcome> outcomes;
    std::vector<tb::runs::BenchmarkEventKind> kinds;
    connect(&process, &tb::ui::BenchmarkProcess::finished, this,
            [&](const tb::ui::BenchmarkOutcome& outcome) { outcomes.push_back(outcome); });
    connect(&process, &tb::ui::BenchmarkProcess::progress, this,
            [&](const tb::runs::BenchmarkEvent& event) { kinds.push_back(event.kind); });
    tb::ui::BenchmarkRequest request;
    request.outDir = dir.filePath(QStringLiteral("out"));  // stays without results.json
    process.start(fake, request);
    QTRY_COMPARE_WITH_TIMEOUT(outcomes.size(), std::size_t{1}, kFakeTimeoutMs);
    QCOMPARE(kinds.size(), std::size_t{1});
    QVERIFY(kinds[0] == tb::runs::BenchmarkEventKind::Summary);
    QCOMPARE(outcomes[0].resultsPath, fixture);
    QVERIFY2(outcomes[0].message.isEmpty(), qPrintable(outcomes[0].message));
    QCOMPARE(outcomes[0].exitCode, 0);
  }

  void realAblationRunsAsChildAndIsLoaded() {
    setForm("tiny", 1, 3);
    QTest::mouseClick(widget<QPushButton>("ablationRun"), Qt::LeftButton);
    QVERIFY(page().isBenchmarkRunning());
    QVERIFY(!widget<QPushButton>("ablationRun")->isEnabled());
    QVERIFY(widget<QPushButton>("ablationCancel")->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!page().isBenchmarkRunning() && page().lastBenchmark().exitCode != -1,
                             kBenchmarkTimeoutMs);
    const tb::ui::BenchmarkOutcome& outcome = page().lastBenchmark();
    QVERIFY2(outcome.message.isEmpty(),
             qPrintable(outcome.message + QLatin1Char('\n') + outcome.stderrTail));
    QCOMPARE(outcome.exitCode, 0);
    QVERIFY(outcome.resultsPath.startsWith(tb::ui::defaultBenchmarksFolder()));
    for (int row = 0; row < 4; ++row) QCOMPARE(runsCell(row), QStringLiteral("1 of 1"));
    QCOMPARE(widget<QProgressBar>("ablationProgress")->value(), 4);
    QCOMPARE(page().sourceModel()->rowCount(), 1);
    QCOMPARE(page().tableModel()->rowCount(), 4);
    QCOMPARE(page().tableModel()->row(0)->speedupOverBase, 1.0);
    QCOMPARE(page().results().model, std::string("tiny"));
    QVERIFY(widget<QPushButton>("ablationRun")->isEnabled());

    if (const QString dir = qEnvironmentVariable("TB_ABLATION_SCREENSHOT_DIR"); !dir.isEmpty()) {
      QVERIFY(page().importClusterFile(benchData("cluster-good.csv")).ok());
      QDir().mkpath(dir);
      QFile::copy(outcome.resultsPath, QDir(dir).filePath(QStringLiteral("results.json")));
      QTest::qWait(300);
      QVERIFY(page().grab().save(QDir(dir).filePath(QStringLiteral("ablation-page.png"))));
    }
  }

  void cancelKeepsTheRunsThatFinished() {
    setForm("tiny", 20, 40);
    page().startBenchmark();
    QTRY_VERIFY_WITH_TIMEOUT(
        runsCell(0).startsWith(QStringLiteral("1 of ")) || !page().isBenchmarkRunning(),
        kBenchmarkTimeoutMs);
    QVERIFY2(page().isBenchmarkRunning(), qPrintable(page().lastBenchmark().stderrTail));
    QTest::mouseClick(widget<QPushButton>("ablationCancel"), Qt::LeftButton);
    QVERIFY(!widget<QPushButton>("ablationCancel")->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!page().isBenchmarkRunning() && page().lastBenchmark().exitCode != -1,
                             kBenchmarkTimeoutMs);
    const tb::ui::BenchmarkOutcome& outcome = page().lastBenchmark();
    QVERIFY(outcome.cancelled);
    QVERIFY2(!outcome.resultsPath.isEmpty(), qPrintable(outcome.stderrTail));
    // The finished runs were loaded: at least Base's first one, never all 80.
    QCOMPARE(page().sourceModel()->rowCount(), 1);
    const tb::bench::ConfigurationResult* base =
        tb::bench::findConfiguration(page().results(), "Base", tb::bench::ResultSource::Engine);
    QVERIFY(base != nullptr);
    QVERIFY(!base->runs.empty() && base->runs.size() < 20);
    QVERIFY(!page().results().complete);
    QCOMPARE(page().results().plannedRuns, 80);
    QVERIFY(widget<QLabel>("ablationSummary")->text().contains(QStringLiteral("partial: ")));
    QVERIFY(widget<QLabel>("ablationRunStatus")->text().contains(QStringLiteral("Cancelled")));
    QVERIFY(widget<QPushButton>("ablationRun")->isEnabled());
  }

  void missingBinaryFailsAndThePageStaysUsable() {
    qputenv("TRAINBENCH_BINARY", QByteArrayLiteral("/nonexistent/trainbench"));
    page().startBenchmark();
    QTRY_VERIFY_WITH_TIMEOUT(
        !page().isBenchmarkRunning() && !page().lastBenchmark().message.isEmpty(), 10'000);
    QCOMPARE(page().lastBenchmark().exitCode, -1);
    QVERIFY(page().lastBenchmark().message.contains(QStringLiteral("/nonexistent/trainbench")));
    QVERIFY(widget<QLabel>("ablationRunStatus")->text().contains(QStringLiteral("cannot start")));
    QVERIFY(widget<QPushButton>("ablationRun")->isEnabled());
    QVERIFY(!widget<QPushButton>("ablationCancel")->isEnabled());
  }
};

TB_UI_TEST_MAIN(AblationPageTest)
#include "ablation_page_test.moc"
