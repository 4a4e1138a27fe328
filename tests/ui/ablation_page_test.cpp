// The Ablation page: a results fixture loaded into the table and the four
// charts (speedup over Base, the normalised/absolute toggle), a cluster file
// beside it, a bad cluster file refused with its line and field, sources
// switched off and remembered, the progress parser on the benchmark's own
// lines, and a real `trainbench benchmark` child (TB_TRAINBENCH_BINARY) run
// from the page, cancelled with its finished runs kept, and a missing binary
// failing cleanly.
// With TB_ABLATION_SCREENSHOT_DIR set, the page after the real run, with the
// cluster fixture imported too, is saved there as ablation-page.png.
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QComboBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "plotting/ablation_charts.h"
#include "ui/ablation/ablation_page.h"
#include "ui/ablation/ablation_run_panel.h"
#include "ui/ablation/ablation_table_model.h"
#include "ui/ablation/benchmark_progress.h"
#include "ui_test_support.h"

using tb::bench::AblationStep;
using tb::ui::AblationTableModel;

namespace {

constexpr int kBenchmarkTimeoutMs = 300'000;

QString benchData(const char* name) {
  return QDir(QStringLiteral(TB_BENCH_TEST_DATA)).filePath(QString::fromLatin1(name));
}

QString cell(const AblationTableModel& model, int row, int column) {
  return model.data(model.index(row, column), Qt::DisplayRole).toString();
}

int rowOf(const AblationTableModel& model, const char* label, const char* source) {
  for (int row = 0; row < model.rowCount(); ++row) {
    if (model.row(row)->label == label && model.row(row)->source == source) return row;
  }
  return -1;
}

}  // namespace

class AblationPageTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;
  std::unique_ptr<tb::ui::StudioSettings> settings_;
  std::unique_ptr<tb::ui::AblationPage> page_;

  tb::ui::AblationPage& page() { return *page_; }

  void makePage(tb::ui::SettingsAccess access = tb::ui::SettingsAccess::ReadWrite) {
    page_.reset();
    settings_ = std::make_unique<tb::ui::StudioSettings>(access);
    page_ = std::make_unique<tb::ui::AblationPage>(*settings_);
    page_->resize(1230, 860);
    page_->show();
  }

 private Q_SLOTS:
  void initTestCase() {
    qputenv("XDG_DATA_HOME", QDir(sandbox_.home()).filePath(QStringLiteral("data")).toLocal8Bit());
  }

  void init() {
    qputenv("TRAINBENCH_BINARY", QByteArrayLiteral(TB_TRAINBENCH_BINARY));
    tb::ui::test::clearStudioSettings();
    makePage();
  }

  void cleanup() { page_.reset(); }

  void resultsFixtureFillsTableAndCharts() {
    QVERIFY(page().results().configurations.empty());
    QVERIFY(!page().throughputChart()->hasResults());
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
    QVERIFY(page().summaryLabel()->text().contains(QStringLiteral("small")));

    // The four charts draw the same four configurations.
    const auto& bars = page().throughputChart()->bars();
    QCOMPARE(bars.size(), 4);
    QCOMPARE(bars[0].label, QStringLiteral("Base"));
    QCOMPARE(bars[0].value, 1.0);
    QVERIFY(bars[3].value > 1.0);
    QCOMPARE(page().peakMemoryChart()->bars().size(), 4);
    QCOMPARE(page().stepTimeChart()->boxes().size(), 4);
    QCOMPARE(page().lossChart()->curveNames().size(), 4);

    // The toggle switches the throughput chart to absolute tokens/s.
    QVERIFY(page().normalisedToggle()->isChecked());
    page().normalisedToggle()->setChecked(false);
    QVERIFY(!page().throughputChart()->isNormalised());
    QCOMPARE(page().throughputChart()->bars()[0].value, 410.0);
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
    QVERIFY2(page().summaryLabel()->text().contains(
                 QStringLiteral("<b>\u26a0 partial: 7 of 12 runs completed</b>")),
             qPrintable(page().summaryLabel()->text()));
    QVERIFY(page().summaryLabel()->text().contains(QStringLiteral("small")));
    // A complete file carries no such note.
    page().sourceModel()->removeSource(0);
    QVERIFY(page().addResultsFile(benchData("results-fixture.json")).ok());
    QVERIFY(!page().summaryLabel()->text().contains(QStringLiteral("partial")));
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
    QCOMPARE(page().throughputChart()->bars().size(), 8);
    QCOMPARE(page().throughputChart()->seriesNames().size(), 2);
    QCOMPARE(page().sourceModel()->rowCount(), 2);
  }

  void badClusterFileIsRefusedWithLineAndField() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.csv"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("label,model,gpus,tokens_per_s_per_gpu\n"
               "Base,llama3-8b,8,3100\n"
               "AC2,llama3-8b,eight,3400\n");
    file.close();
    const tb::Status imported = page().importClusterFile(path);
    QVERIFY(!imported.ok());
    QCOMPARE(page().sourceModel()->rowCount(), 0);
    const QString message = page().messageLabel()->text();
    QVERIFY(page().messageLabel()->isVisible());
    QVERIFY2(message.contains(QStringLiteral("runs.csv:3")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("gpus")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("eight")), qPrintable(message));
    // A good file afterwards clears the message.
    QVERIFY(page().importClusterFile(benchData("cluster-good.json")).ok());
    QVERIFY(!page().messageLabel()->isVisible());
  }

  void untickedSourceIsLeftOut() {
    QVERIFY(page().addResultsFile(benchData("results-fixture.json")).ok());
    QVERIFY(page().importClusterFile(benchData("cluster-good.json")).ok());
    QCOMPARE(page().tableModel()->rowCount(), 8);
    tb::ui::AblationSourceModel& sources = *page().sourceModel();
    QVERIFY(sources.setData(sources.index(0, 0), Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(page().tableModel()->rowCount(), 4);
    QCOMPARE(page().tableModel()->row(0)->source, std::string("cluster"));
    QCOMPARE(page().throughputChart()->bars().size(), 4);
  }

  void sourcesAndFormAreRemembered() {
    QVERIFY(page().addResultsFile(benchData("results-fixture.json")).ok());
    QVERIFY(page().importClusterFile(benchData("cluster-good.csv")).ok());
    page().runPanel()->repeatsBox()->setValue(2);
    page().normalisedToggle()->setChecked(false);
    makePage();
    QCOMPARE(page().sourceModel()->rowCount(), 2);
    QCOMPARE(page().tableModel()->rowCount(), 8);
    QVERIFY(!page().normalisedToggle()->isChecked());
    QVERIFY(!page().throughputChart()->isNormalised());

    // A screenshot run (read-only settings) restores but never writes.
    makePage(tb::ui::SettingsAccess::ReadOnly);
    QCOMPARE(page().sourceModel()->rowCount(), 2);
    page().sourceModel()->removeSource(0);
    makePage();
    QCOMPARE(page().sourceModel()->rowCount(), 2);
  }

  void progressLinesOfTheBenchmarkAreRead() {
    using tb::ui::parseBenchmarkProgress;
    const auto finished = parseBenchmarkProgress(QStringLiteral(
        "[5/12] AC2+CompilerOpt repeat 2: ok, 530 tokens/s, step 0.1234 s, peak 12.3 MiB, 3.2 s"));
    QVERIFY(finished.has_value());
    QVERIFY(finished->step == AblationStep::CompilerOpt);
    QCOMPARE(finished->runsDone, 5);
    QCOMPARE(finished->runsTotal, 12);
    QCOMPARE(finished->status, QStringLiteral("ok"));
    QVERIFY(!finished->started);
    const auto oom = parseBenchmarkProgress(
        QStringLiteral("[4/4] AC2+CompilerOpt+CkptOpt repeat 1: oom: budget exceeded"));
    QVERIFY(oom && oom->step == AblationStep::CkptOpt && oom->status == QLatin1String("oom"));
    const auto base = parseBenchmarkProgress(QStringLiteral("[1/8] Base repeat 1: ok, 4 s"));
    QVERIFY(base && base->step == AblationStep::Base);
    const auto json = parseBenchmarkProgress(QStringLiteral(
        R"({"event":"run_end","label":"+CkptOpt","run":3,"total":4,"status":"ok"})"));
    QVERIFY(json && json->step == AblationStep::CkptOpt && json->runsDone == 3);
    // Lines that are not runs are not progress, even when they name a configuration.
    QVERIFY(!parseBenchmarkProgress(QStringLiteral("memory budget 1.2 GiB: Base fits")));
    QVERIFY(!parseBenchmarkProgress(QStringLiteral("warning: the database is busy")));
    QVERIFY(!parseBenchmarkProgress(QStringLiteral("   ")));
  }

  void realAblationRunsAsChildAndIsLoaded() {
    page().runPanel()->modelBox()->setCurrentText(QStringLiteral("tiny"));
    page().runPanel()->repeatsBox()->setValue(1);
    page().runPanel()->stepsBox()->setValue(3);
    QTest::mouseClick(page().runPanel()->runButton(), Qt::LeftButton);
    QVERIFY(page().isBenchmarkRunning());
    QVERIFY(!page().runPanel()->runButton()->isEnabled());
    QVERIFY(page().runPanel()->cancelButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!page().isBenchmarkRunning() && page().lastBenchmark().exitCode != -1,
                             kBenchmarkTimeoutMs);
    const tb::ui::BenchmarkOutcome& outcome = page().lastBenchmark();
    QVERIFY2(outcome.message.isEmpty(),
             qPrintable(outcome.message + QLatin1Char('\n') + outcome.stderrTail));
    QCOMPARE(outcome.exitCode, 0);
    QVERIFY(outcome.resultsPath.startsWith(tb::ui::defaultBenchmarksFolder()));
    for (int index = 0; index < 4; ++index) QCOMPARE(page().runPanel()->finishedRuns(index), 1);
    QCOMPARE(page().runPanel()->progressBar()->value(), 4);
    QCOMPARE(page().sourceModel()->rowCount(), 1);
    QCOMPARE(page().tableModel()->rowCount(), 4);
    QCOMPARE(page().tableModel()->row(0)->speedupOverBase, 1.0);
    QCOMPARE(page().results().model, std::string("tiny"));
    QVERIFY(page().runPanel()->runButton()->isEnabled());

    if (const QString dir = qEnvironmentVariable("TB_ABLATION_SCREENSHOT_DIR"); !dir.isEmpty()) {
      QVERIFY(page().importClusterFile(benchData("cluster-good.csv")).ok());
      QDir().mkpath(dir);
      QFile::copy(outcome.resultsPath, QDir(dir).filePath(QStringLiteral("results.json")));
      QTest::qWait(300);
      QVERIFY(page().grab().save(QDir(dir).filePath(QStringLiteral("ablation-page.png"))));
    }
  }

  void cancelKeepsTheRunsThatFinished() {
    page().runPanel()->modelBox()->setCurrentText(QStringLiteral("tiny"));
    page().runPanel()->repeatsBox()->setValue(20);
    page().runPanel()->stepsBox()->setValue(40);
    page().startBenchmark();
    QTRY_VERIFY_WITH_TIMEOUT(
        page().runPanel()->finishedRuns(0) == 1 || !page().isBenchmarkRunning(),
        kBenchmarkTimeoutMs);
    QVERIFY2(page().isBenchmarkRunning(), qPrintable(page().lastBenchmark().stderrTail));
    QTest::mouseClick(page().runPanel()->cancelButton(), Qt::LeftButton);
    QVERIFY(!page().runPanel()->cancelButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!page().isBenchmarkRunning() && page().lastBenchmark().exitCode != -1,
                             kBenchmarkTimeoutMs);
    const tb::ui::BenchmarkOutcome& outcome = page().lastBenchmark();
    QVERIFY(outcome.cancelled);
    QVERIFY2(!outcome.resultsPath.isEmpty(), qPrintable(outcome.stderrTail));
    // The finished runs were loaded: at least Base's first one, never all 80.
    QCOMPARE(page().sourceModel()->rowCount(), 1);
    const tb::bench::ConfigurationResult* base = tb::bench::findConfiguration(
        page().results(), "Base", tb::bench::ResultSource::Engine);
    QVERIFY(base != nullptr);
    QVERIFY(!base->runs.empty() && base->runs.size() < 20);
    QVERIFY(!page().results().complete);
    QCOMPARE(page().results().plannedRuns, 80);
    QVERIFY(page().summaryLabel()->text().contains(QStringLiteral("partial: ")));
    QVERIFY(page().runPanel()->statusLabel()->text().contains(QStringLiteral("Cancelled")));
    QVERIFY(page().runPanel()->runButton()->isEnabled());
  }

  void missingBinaryFailsAndThePageStaysUsable() {
    qputenv("TRAINBENCH_BINARY", QByteArrayLiteral("/nonexistent/trainbench"));
    page().startBenchmark();
    QTRY_VERIFY_WITH_TIMEOUT(
        !page().isBenchmarkRunning() && !page().lastBenchmark().message.isEmpty(), 10'000);
    QCOMPARE(page().lastBenchmark().exitCode, -1);
    QVERIFY(page().lastBenchmark().message.contains(QStringLiteral("/nonexistent/trainbench")));
    QVERIFY(page().runPanel()->statusLabel()->text().contains(QStringLiteral("cannot start")));
    QVERIFY(page().runPanel()->runButton()->isEnabled());
    QVERIFY(!page().runPanel()->cancelButton()->isEnabled());
  }
};

TB_UI_TEST_MAIN(AblationPageTest)
#include "ablation_page_test.moc"
