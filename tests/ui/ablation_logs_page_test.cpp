// Training logs on the Ablation page: two frameworks' logs beside the
// engine's results, their details and labels, logs that cannot be placed
// refused naming the file, dropped files sorted by content, and logs
// restored from the last session (read again on a worker): charted even
// when listed before the engine file, queued behind by later imports, and
// kept in the saved state when the Studio closes before they are in.
// A log still being written is followed: its records reach the table and
// the charts as they are appended, and following ends with the run.
// With TB_ABLATION_SCREENSHOT_DIR set, the pages are saved there as
// ablation-imported-logs.png, ablation-restored-logs.png and
// ablation-following-log.png.
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStringList>
#include <QHeaderView>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <cmath>

#include "ablation_page_fixture.h"
#include "ui/ablation/ablation_log_import.h"
#include "ui/ablation/ablation_source_model.h"
#include "ui/ablation/log_follow_set.h"
#include "ui/application_identity.h"

using tb::ui::AblationTableModel;
using tb::ui::test::benchData;
using tb::ui::test::cell;
using tb::ui::test::logData;
using tb::ui::test::rowOf;

// A Megatron-LM run of 50 iterations on 8 GPUs, as its log starts.
const QByteArray kMegatronArguments =
    "------------------------ arguments ------------------------\n"
    "  global_batch_size ............................... 64\n"
    "  seq_length ...................................... 4096\n"
    "  train_iters ..................................... 50\n"
    "  world_size ...................................... 8\n"
    "-------------------- end of arguments ---------------------\n";

QByteArray iteration(int step, double ms) {
  return QStringLiteral(
             " [2024-09-03 15:54:54] iteration %1/      50 | consumed samples: %2 | elapsed time "
             "per iteration (ms): %3 | throughput per GPU (TFLOP/s/GPU): 400.0 | learning rate: "
             "3.000000E-04 | global batch size:    64 | lm loss: %4 | loss scale: 1.0 | grad "
             "norm: 1.250 | number of skipped iterations:   0 | number of nan iterations:   0 |\n")
      .arg(step)
      .arg(step * 64)
      .arg(ms, 0, 'f', 1)
      .arg(10.0 - step * 0.01)
      .toUtf8();
}

void appendTo(const QString& path, const QByteArray& text) {
  QFile file(path);
  QVERIFY(file.open(QIODevice::Append));
  QCOMPARE(file.write(text), text.size());
}

class AblationLogsPageTest : public QObject, private tb::ui::test::AblationPageFixture {
  Q_OBJECT

 private:
  /// Stores `entries` as the page's logs of the last session, then opens the page.
  void restoreLogs(const QStringList& entries) {
    page_.reset();
    {
      QSettings stored(tb::ui::organizationName(), tb::ui::applicationName());
      stored.setValue(tb::ui::keys::kAblationLogs.key(), entries);
    }
    makePage();
  }

  /// Imports `paths` through the page's log row and waits for the batch.
  void importLogsAndWait(const QStringList& paths, const char* label, int gpus) {
    widget<QComboBox>("ablationLogLabel")->setCurrentText(QString::fromLatin1(label));
    widget<QSpinBox>("ablationLogGpus")->setValue(gpus);
    QSignalSpy finished(page().logImport(), &tb::ui::AblationLogImport::batchFinished);
    page().importLogs(paths);
    QVERIFY(finished.wait(20'000));
  }

 private Q_SLOTS:
  void initTestCase() { useSandboxDataHome(); }

  void init() {
    tb::ui::test::clearStudioSettings();
    makePage();
  }

  void cleanup() { page_.reset(); }

  void trainingLogsOfTwoFormatsJoinTheEngineResults() {
    QVERIFY(page().addResultsFile(benchData("results-fixture.json")).ok());
    // Megatron's argument dump says 8 GPUs; torchtitan's log does not.
    importLogsAndWait({logData("megatron/core_v0.16_first_iteration.log")}, "Base", 0);
    importLogsAndWait({logData("torchtitan/torchtitan_2026-01_wandb_grad_norm.log")},
                      "AC2+CompilerOpt", 8);
    tb::ui::AblationSourceModel& sources = *page().sourceModel();
    QCOMPARE(sources.rowCount(), 3);
    const auto cellOf = [&](int row, int column) {
      return sources.data(sources.index(row, column), Qt::DisplayRole).toString();
    };
    QCOMPARE(cellOf(1, tb::ui::AblationSourceModel::Kind), QStringLiteral("megatron log"));
    QCOMPARE(cellOf(1, tb::ui::AblationSourceModel::Label), QStringLiteral("Base"));
    QCOMPARE(cellOf(2, tb::ui::AblationSourceModel::Kind), QStringLiteral("torchtitan log"));
    QCOMPARE(cellOf(2, tb::ui::AblationSourceModel::Label), QStringLiteral("AC2+CompilerOpt"));
    QCOMPARE(cellOf(0, tb::ui::AblationSourceModel::Label), QStringLiteral("\u2014"));

    const AblationTableModel& model = *page().tableModel();
    QCOMPARE(model.rowCount(), 6);
    const int base = rowOf(model, "Base", "cluster");
    const int compiler = rowOf(model, "AC2+CompilerOpt", "cluster");
    QVERIFY(base >= 0 && compiler >= 0);
    // torchtitan's tps is per GPU already: its median 55,196 (steps 1, 90–110).
    QVERIFY2(cell(model, compiler, AblationTableModel::Throughput).startsWith(QStringLiteral("55")),
             qPrintable(cell(model, compiler, AblationTableModel::Throughput)));
    QCOMPARE(throughputChart()->seriesNames().size(), 2);
    // The loss curves of the logs join the engine's, at the steps logged.
    QCOMPARE(widget<tb::plotting::LossCurvesChart>("ablationLossChart")->curveNames().size(), 6);

    // Selecting a log shows what was read and what the file lacked; the
    // label chooser moves it.
    widget<QTableView>("ablationSources")->selectRow(2);
    auto* details = widget<QLabel>("ablationSourceDetails");
    QVERIFY(details->isVisible());
    QVERIFY2(details->text().contains(QStringLiteral("torchtitan log \u00b7 4 records")),
             qPrintable(details->text()));
    QVERIFY2(details->text().contains(QStringLiteral("read: loss, grad_norm, tokens_per_s")),
             qPrintable(details->text()));
    QVERIFY2(details->text().contains(QStringLiteral("not in the file:")),
             qPrintable(details->text()));
    QVERIFY(sources.setData(sources.index(2, tb::ui::AblationSourceModel::Label),
                            QStringLiteral("AC2"), Qt::EditRole));
    QVERIFY(rowOf(model, "AC2", "cluster") >= 0);
    QCOMPARE(rowOf(model, "AC2+CompilerOpt", "cluster"), -1);

    if (const QString dir = qEnvironmentVariable("TB_ABLATION_SCREENSHOT_DIR"); !dir.isEmpty()) {
      QDir().mkpath(dir);
      QTest::qWait(300);
      QVERIFY(page().grab().save(QDir(dir).filePath(QStringLiteral("ablation-imported-logs.png"))));
    }

    // The logs, their labels and GPU counts are remembered and read again.
    makePage();
    QTRY_COMPARE_WITH_TIMEOUT(page().sourceModel()->rowCount(), 3, 20'000);
    QVERIFY(rowOf(*page().tableModel(), "AC2", "cluster") >= 0);
  }

  void aLogThatCannotBeAnAblationRunIsRefusedNamingIt() {
    // torchtitan without a GPU count: no tokens/s per GPU can be placed.
    importLogsAndWait({logData("torchtitan/torchtitan_2026-01_wandb_grad_norm.log")}, "Base", 0);
    QCOMPARE(page().sourceModel()->rowCount(), 0);
    QString message = widget<QLabel>("ablationMessage")->text();
    QVERIFY2(message.contains(QStringLiteral("torchtitan_2026-01_wandb_grad_norm.log")) &&
                 message.contains(QStringLiteral("GPUs")),
             qPrintable(message));
    // A file in no known format names what was expected.
    QTemporaryDir dir;
    const QString text = dir.filePath(QStringLiteral("notes.txt"));
    QFile file(text);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("nothing a training framework wrote\n");
    file.close();
    importLogsAndWait({text}, "Base", 8);
    message = widget<QLabel>("ablationMessage")->text();
    QVERIFY2(message.contains(QStringLiteral("notes.txt")) &&
                 message.contains(QStringLiteral("expected one of")),
             qPrintable(message));
  }

  void droppedFilesGoWhereTheirContentSays() {
    QCOMPARE(tb::ui::guessSourceKind(benchData("results-fixture.json")),
             tb::ui::AblationSourceKind::EngineResults);
    QCOMPARE(tb::ui::guessSourceKind(benchData("cluster-good.csv")),
             tb::ui::AblationSourceKind::ClusterImport);
    QCOMPARE(tb::ui::guessSourceKind(benchData("cluster-good.json")),
             tb::ui::AblationSourceKind::ClusterImport);
    QCOMPARE(tb::ui::guessSourceKind(logData("lightning-csv/nemo_throughput_columns.csv")),
             tb::ui::AblationSourceKind::TrainingLog);
    QCOMPARE(tb::ui::guessSourceKind(logData("hf-trainer/output_dir")),
             tb::ui::AblationSourceKind::TrainingLog);
    // A drop of a results file and a log: the first loads at once, the log on the worker.
    widget<QSpinBox>("ablationLogGpus")->setValue(0);
    QSignalSpy finished(page().logImport(), &tb::ui::AblationLogImport::batchFinished);
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(benchData("results-fixture.json")),
                   QUrl::fromLocalFile(logData("megatron/core_v0.16_first_iteration.log"))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, mime, Qt::LeftButton, {});
    QCoreApplication::sendEvent(&page(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&page(), &drop);
    delete mime;
    QVERIFY2(page().sourceModel()->rowCount() == 1,
             qPrintable(widget<QLabel>("ablationMessage")->text()));
    QVERIFY(finished.wait(20'000));
    QCOMPARE(page().sourceModel()->rowCount(), 2);
  }

  void aRestoredLogListedBeforeTheEngineFileReachesTheCharts() {
    // The page read this torchtitan log last time, with the GPUs given in
    // its row; it is read again on a worker, so it is listed before the
    // engine file added after start-up, and its bar must still be drawn.
    restoreLogs({QStringLiteral("AC2\t8\t") +
                 logData("torchtitan/torchtitan_2026-01_wandb_grad_norm.log")});
    QTRY_COMPARE_WITH_TIMEOUT(page().sourceModel()->rowCount(), 1, 20'000);
    QVERIFY(page().addResultsFile(benchData("results-fixture.json")).ok());
    QVERIFY(page().importClusterFile(benchData("cluster-good.json")).ok());
    importLogsAndWait({logData("megatron/core_v0.16_first_iteration.log")}, "Base", 0);
    QCOMPARE(page().sourceModel()->rowCount(), 4);

    const AblationTableModel& model = *page().tableModel();
    QCOMPARE(model.rowCount(), 10);
    QVERIFY2(
        cell(model, rowOf(model, "AC2", "cluster"), AblationTableModel::Throughput)
            .contains(QStringLiteral("55,196")),
        qPrintable(cell(model, rowOf(model, "AC2", "cluster"), AblationTableModel::Throughput)));
    // The logs share one series (cluster, unknown model, 8 GPUs): torchtitan's
    // 55,196 tokens/s/gpu over Megatron's 31,975.
    const QString series = QStringLiteral("cluster \u00b7 unknown \u00b7 8 GPUs");
    double ac2 = 0.0;
    for (const tb::plotting::AblationBar& bar : throughputChart()->bars()) {
      if (bar.series == series && bar.label == QStringLiteral("AC2")) ac2 = bar.value;
    }
    QVERIFY2(std::abs(ac2 - 55'196.0 / 31'975.0) < 1e-3, qPrintable(QString::number(ac2)));
    QCOMPARE(throughputChart()->seriesNames().size(), 3);
    // Both logs' loss curves are drawn beside the engine's four.
    QCOMPARE(widget<tb::plotting::LossCurvesChart>("ablationLossChart")->curveNames().size(), 6);
    // The list's kinds are whole, the restored log's first among them.
    const auto* list = widget<QTableView>("ablationSources");
    for (int row = 0; row < list->model()->rowCount(); ++row) {
      const QModelIndex kind = list->model()->index(row, tb::ui::AblationSourceModel::Kind);
      QVERIFY2(list->horizontalHeader()->sectionSize(kind.column()) >=
                   list->sizeHintForIndex(kind).width(),
               qPrintable(kind.data().toString()));
    }

    if (const QString dir = qEnvironmentVariable("TB_ABLATION_SCREENSHOT_DIR"); !dir.isEmpty()) {
      QDir().mkpath(dir);
      QTest::qWait(300);
      QVERIFY(page().grab().save(QDir(dir).filePath(QStringLiteral("ablation-restored-logs.png"))));
    }
  }

  void logsGivenWhileOthersAreReadWaitTheirTurn() {
    // The restored log is still on the worker when the next one is given.
    restoreLogs({QStringLiteral("AC2\t8\t") +
                 logData("torchtitan/torchtitan_2026-01_wandb_grad_norm.log")});
    QVERIFY(page().logImport()->isBusy());
    importLogsAndWait({logData("megatron/core_v0.16_first_iteration.log")}, "Base", 0);
    QVERIFY(!page().logImport()->isBusy());
    QCOMPARE(page().sourceModel()->rowCount(), 2);
    QVERIFY2(!widget<QLabel>("ablationMessage")->isVisible(),
             qPrintable(widget<QLabel>("ablationMessage")->text()));
    QVERIFY(rowOf(*page().tableModel(), "AC2", "cluster") >= 0);
    QVERIFY(rowOf(*page().tableModel(), "Base", "cluster") >= 0);
  }

  void aLogStillBeingWrittenIsFollowedUntilItsRunEnds() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("train.log"));
    const auto append = [&](const QByteArray& text) { appendTo(path, text); };
    // Base ran yesterday, to its end: it is not followed.
    const QString base = dir.filePath(QStringLiteral("base.log"));
    QByteArray baseLog = kMegatronArguments;
    for (int step = 10; step <= 50; step += 10) baseLog += iteration(step, 1600.0);
    appendTo(base, baseLog);
    importLogsAndWait({base}, "Base", 0);
    QVERIFY(!page().logFollows()->isFollowing(base));
    append(kMegatronArguments + iteration(10, 1500.0) + iteration(20, 1500.0));
    importLogsAndWait({path}, "AC2", 0);
    tb::ui::AblationSourceModel& sources = *page().sourceModel();
    QCOMPARE(sources.rowCount(), 2);
    const QModelIndex follow = sources.index(1, tb::ui::AblationSourceModel::Follow);
    QVERIFY2(page().logFollows()->isFollowing(path), "a run still writing is followed");
    QCOMPARE(sources.data(follow, Qt::CheckStateRole).toInt(), static_cast<int>(Qt::Checked));
    page().logFollows()->setInterval(std::chrono::milliseconds(100));

    // Steps arrive, the last one cut mid-line as a writer leaves it; the
    // row's selection stays while the records grow.
    widget<QTableView>("ablationSources")->selectRow(1);
    const QByteArray thirty = iteration(30, 1000.0);
    append(thirty + iteration(40, 1000.0).left(60));
    QTRY_COMPARE_WITH_TIMEOUT(sources.sources()[1].log->run.records, 3, 10'000);
    append(iteration(40, 1000.0).mid(60));
    QTRY_COMPARE_WITH_TIMEOUT(sources.sources()[1].log->run.records, 4, 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(
        sources.data(follow, Qt::DisplayRole).toString().contains(QStringLiteral("step 40")),
        10'000);
    QCOMPARE(widget<QTableView>("ablationSources")->selectionModel()->selectedRows().size(), 1);
    const int row = rowOf(*page().tableModel(), "AC2", "cluster");
    QVERIFY(row >= 0);
    // The median step time moves from 1.5 s towards the new steps' 1.0 s.
    QVERIFY2(cell(*page().tableModel(), row, AblationTableModel::StepTime)
                 .startsWith(QStringLiteral("1.25")),
             qPrintable(cell(*page().tableModel(), row, AblationTableModel::StepTime)));
    if (const QString shots = qEnvironmentVariable("TB_ABLATION_SCREENSHOT_DIR");
        !shots.isEmpty()) {
      QDir().mkpath(shots);
      QTest::qWait(300);
      QVERIFY(
          page().grab().save(QDir(shots).filePath(QStringLiteral("ablation-following-log.png"))));
    }

    // The planned last step ends the following.
    append(iteration(50, 1000.0));
    QTRY_VERIFY_WITH_TIMEOUT(!page().logFollows()->isFollowing(path), 10'000);
    QCOMPARE(sources.sources()[1].log->run.records, 5);
    QVERIFY2(sources.data(follow, Qt::DisplayRole).toString().startsWith(QStringLiteral("ended")),
             qPrintable(sources.data(follow, Qt::DisplayRole).toString()));
    QCOMPARE(sources.data(follow, Qt::CheckStateRole).toInt(), static_cast<int>(Qt::Unchecked));
  }

  void aFollowedLogThatDisappearsSaysSoAndKeepsItsRecords() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("train.log"));
    appendTo(path, kMegatronArguments + iteration(10, 1500.0));
    importLogsAndWait({path}, "Base", 0);
    tb::ui::AblationSourceModel& sources = *page().sourceModel();
    QCOMPARE(sources.rowCount(), 1);
    const QModelIndex follow = sources.index(0, tb::ui::AblationSourceModel::Follow);
    // Unticked and ticked again by hand: following starts afresh.
    QVERIFY(sources.setData(follow, static_cast<int>(Qt::Unchecked), Qt::CheckStateRole));
    QVERIFY(!page().logFollows()->isFollowing(path));
    QVERIFY(sources.setData(follow, static_cast<int>(Qt::Checked), Qt::CheckStateRole));
    QVERIFY(page().logFollows()->isFollowing(path));
    page().logFollows()->setInterval(std::chrono::milliseconds(100));
    QTRY_VERIFY_WITH_TIMEOUT(
        sources.data(follow, Qt::DisplayRole).toString().contains(QStringLiteral("step 10")),
        10'000);
    const std::int64_t records = sources.sources().front().log->run.records;
    QVERIFY(QFile::remove(path));
    QTRY_VERIFY2_WITH_TIMEOUT(sources.data(follow, Qt::DisplayRole)
                                  .toString()
                                  .contains(QStringLiteral("no such file any more")),
                              qPrintable(sources.data(follow, Qt::DisplayRole).toString()), 10'000);
    QCOMPARE(sources.sources().front().log->run.records, records);
    // Unticking stops it.
    QVERIFY(sources.setData(follow, static_cast<int>(Qt::Unchecked), Qt::CheckStateRole));
    QVERIFY(!page().logFollows()->isFollowing(path));
  }

  void closingWhileRestoredLogsAreReadKeepsThem() {
    const QString log = logData("torchtitan/torchtitan_2026-01_wandb_grad_norm.log");
    restoreLogs({QStringLiteral("AC2\t8\t") + log});
    // Closed before the worker's answer is handled: the log is not yet
    // listed, and the saved state must still name it.
    QVERIFY(page().logImport()->isBusy());
    page_.reset();
    const QStringList kept = tb::ui::keys::kAblationLogs.get();
    QCOMPARE(kept, QStringList{QStringLiteral("AC2\t8\t") + QFileInfo(log).absoluteFilePath()});
    // A restored log that no longer reads is dropped, naming it.
    QTemporaryDir dir;
    const QString gone = dir.filePath(QStringLiteral("gone.log"));
    restoreLogs({QStringLiteral("Base\t8\t") + gone});
    QSignalSpy finished(page().logImport(), &tb::ui::AblationLogImport::batchFinished);
    QVERIFY(finished.wait(20'000));
    QVERIFY2(widget<QLabel>("ablationMessage")->text().contains(QStringLiteral("gone.log")),
             qPrintable(widget<QLabel>("ablationMessage")->text()));
    QVERIFY(tb::ui::keys::kAblationLogs.get().isEmpty());
  }
};

QTEST_MAIN(AblationLogsPageTest)
#include "ablation_logs_page_test.moc"
