// A cluster plan folder on the Ablation page, as a user follows one: a
// torchrun plan written by the real `trainbench ablation plan`, its
// submit.sh running for real (torchrun starting two engine workers per job),
// the folder opened while the jobs still run, then collected once they
// ended. With TB_ABLATION_SCREENSHOT_DIR set, the page is saved at both
// moments (docs/images/ablation-plan-*.png).
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ablation_page_fixture.h"
#include "ui/ablation/ablation_plan_panel.h"
#include "ui/open_files.h"

using tb::ui::AblationPlanPanel;

namespace {

constexpr int kJobs = 4;
constexpr int kLastRecordColumn = 5;

QString trainbenchDir() { return QFileInfo(QStringLiteral(TB_TRAINBENCH_BINARY)).absolutePath(); }

// A port the kernel has just handed out on 127.0.0.1, for torchrun's store.
int freeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = 29500;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&address), length) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  if (fd >= 0) ::close(fd);
  return port;
}

}  // namespace

class AblationPlanPanelTest : public QObject, public tb::ui::test::AblationPageFixture {
  Q_OBJECT

  QTemporaryDir scratch_;
  QString plan_;
  QProcess submit_;

  AblationPlanPanel* panel() { return page().planPanel(); }
  QTableWidget* jobs() { return widget<QTableWidget>("ablationPlanJobs"); }
  QString state(int row) { return jobs()->item(row, 1)->text(); }

  void writePlan() {
    plan_ = QDir(scratch_.path()).filePath(QString::fromLatin1(QTest::currentTestFunction()));
    QProcess planner;
    planner.start(
        QStringLiteral(TB_TRAINBENCH_BINARY),
        {QStringLiteral("ablation"), QStringLiteral("plan"), QStringLiteral("--image"),
         QStringLiteral("25.09"), QStringLiteral("--scheduler"), QStringLiteral("torchrun"),
         QStringLiteral("--gpus"), QStringLiteral("2"), QStringLiteral("--repeats"),
         QStringLiteral("1"), QStringLiteral("--model"), QStringLiteral("tiny"),
         QStringLiteral("--steps"), QStringLiteral("200"), QStringLiteral("--device"),
         QStringLiteral("cpu"), QStringLiteral("--out"), plan_});
    QVERIFY(planner.waitForFinished(60000));
    QCOMPARE(planner.exitCode(), 0);
  }

  // submit.sh as a user runs it on one host; torchrun 1.13 under Python 3.11
  // needs single-bit redirects (docs/CLUSTER.md).
  void startSubmit() {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("PATH"), trainbenchDir() + QLatin1Char(':') +
                                                   environment.value(QStringLiteral("PATH")));
    environment.insert(QStringLiteral("PET_REDIRECTS"), QStringLiteral("2"));
    environment.insert(QStringLiteral("PET_TEE"), QStringLiteral("1"));
    environment.insert(QStringLiteral("PET_LOG_DIR"),
                       QDir(scratch_.path()).filePath(QStringLiteral("torchrun")));
    environment.insert(QStringLiteral("PET_MASTER_PORT"), QString::number(freeLoopbackPort()));
    environment.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("1"));
    submit_.setProcessEnvironment(environment);
    submit_.setProcessChannelMode(QProcess::MergedChannels);
    submit_.start(QStringLiteral("sh"), {QDir(plan_).filePath(QStringLiteral("submit.sh"))});
    QVERIFY(submit_.waitForStarted(10000));
  }

  void saveScreenshot(const char* name) {
    const QString dir = qEnvironmentVariable("TB_ABLATION_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    QTest::qWait(300);
    QVERIFY(page().grab().save(QDir(dir).filePath(QString::fromLatin1(name))));
  }

 private Q_SLOTS:
  void initTestCase() {
    useSandboxDataHome();
    QVERIFY(scratch_.isValid());
  }

  void init() {
    qputenv("TRAINBENCH_BINARY", QByteArrayLiteral(TB_TRAINBENCH_BINARY));
    tb::ui::test::clearStudioSettings();
    makePage();
  }

  void cleanup() {
    if (submit_.state() != QProcess::NotRunning) {
      submit_.terminate();
      submit_.waitForFinished(30000);
    }
    page_.reset();
  }

  void aPlanFolderOpensOnTheAblationPage() {
    writePlan();
    QCOMPARE(tb::ui::planFolderOf(plan_), QFileInfo(plan_).absoluteFilePath());
    QCOMPARE(tb::ui::planFolderOf(QDir(plan_).filePath(QStringLiteral("plan.json"))),
             QFileInfo(plan_).absoluteFilePath());
    QVERIFY(tb::ui::planFolderOf(scratch_.path()).isEmpty());
    QCOMPARE(tb::ui::openTargetFor(QDir(plan_).filePath(QStringLiteral("plan.json"))),
             tb::ui::OpenTarget::Ablation);
    QVERIFY(!panel()->isVisible());
    QSignalSpy finished(panel(), &AblationPlanPanel::taskFinished);
    page().openPaths({plan_});
    QVERIFY(panel()->isVisible());
    QVERIFY(panel()->isBusy());  // the status child runs; the window does not wait for it
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QCOMPARE(jobs()->rowCount(), kJobs);
    for (int row = 0; row < kJobs; ++row) QCOMPARE(state(row), QStringLiteral("not-started"));
    QCOMPARE(jobs()->item(3, 0)->text(), QStringLiteral("+CkptOpt"));
    QVERIFY(jobs()->item(3, 0)->toolTip().startsWith(QLatin1String("AC2+CompilerOpt+CkptOpt")));
  }

  void jobsFollowedWhileTheyRunThenCollected() {
    writePlan();
    startSubmit();
    // Opened once AC2, the second job, has trained a step.
    const QString events = QDir(plan_).filePath(QStringLiteral("logs/AC2/1/run/events.jsonl"));
    const auto trainedAStep = [&events] {
      QFile file(events);
      return file.open(QIODevice::ReadOnly) && file.readAll().contains("\"event\":\"step\"");
    };
    QTRY_VERIFY_WITH_TIMEOUT(trainedAStep(), 180000);

    // The jobs still run: Base has completed, the last one has not. A plan
    // under way is followed by default.
    QSignalSpy finished(panel(), &AblationPlanPanel::taskFinished);
    panel()->setFollowInterval(std::chrono::milliseconds(1000));
    page().openPlanFolder(plan_);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QCOMPARE(jobs()->rowCount(), kJobs);
    QCOMPARE(state(0), QStringLiteral("completed"));
    QVERIFY2(state(kJobs - 1) != QLatin1String("completed"), qPrintable(state(kJobs - 1)));
    // Its launcher may still be exiting: "running", then "exited 0".
    const QString launcher = jobs()->item(0, 2)->text();
    QVERIFY2(launcher == QLatin1String("exited 0") || launcher == QLatin1String("running"),
             qPrintable(launcher));
    QVERIFY(panel()->isFollowing());
    QCOMPARE(jobs()->item(0, kLastRecordColumn)->text(), QStringLiteral("-"));  // it ended
    // Base's results are on the charts at once; more looks follow the rest.
    QTRY_VERIFY_WITH_TIMEOUT(!page().results().configurations.empty(), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(finished.size() >= 4, 60000);
    saveScreenshot("ablation-plan-running.png");

    // Once every job has ended, the last one is collected without a click
    // and following stops.
    QVERIFY(submit_.waitForFinished(300000));
    QCOMPARE(submit_.exitCode(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!panel()->isFollowing(), 120000);
    QTRY_COMPARE_WITH_TIMEOUT(page().results().configurations.size(), std::size_t{kJobs}, 120000);
    QTRY_VERIFY_WITH_TIMEOUT(!panel()->isBusy(), 120000);
    for (int row = 0; row < kJobs; ++row) QCOMPARE(state(row), QStringLiteral("completed"));
    QVERIFY(QFileInfo::exists(QDir(plan_).filePath(QStringLiteral("report.html"))));
    // The collected results are on the page's charts, as cluster configurations.
    QCOMPARE(page().results().configurations.size(), std::size_t{kJobs});
    for (const auto& configuration : page().results().configurations) {
      QVERIFY(configuration.source == tb::bench::ResultSource::Cluster);
      QVERIFY(configuration.throughput.median > 0.0);
    }
    QVERIFY(throughputChart()->hasResults());
    QVERIFY(widget<QLabel>("ablationPlanStatus")->text().contains(QLatin1String("4 of 4")));
    QVERIFY(!widget<QCheckBox>("ablationPlanFollow")->isChecked());
    saveScreenshot("ablation-plan-collected.png");
  }

  void collectBeforeAnyJobSaysWhyAndWritesNothing() {
    writePlan();
    QSignalSpy finished(panel(), &AblationPlanPanel::taskFinished);
    page().openPlanFolder(plan_);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
    QVERIFY(!panel()->isFollowing());  // a plan not under way is not followed by default
    widget<QPushButton>("ablationPlanCollect")->click();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 60000);
    QCOMPARE(finished.at(1).at(0).toBool(), false);
    QVERIFY2(widget<QLabel>("ablationPlanStatus")
                 ->text()
                 .contains(QLatin1String("no job of the plan has completed yet")),
             qPrintable(widget<QLabel>("ablationPlanStatus")->text()));
    QVERIFY(!QFileInfo::exists(QDir(plan_).filePath(QStringLiteral("results.json"))));
    QVERIFY(page().results().configurations.empty());
  }
};

TB_UI_TEST_MAIN(AblationPlanPanelTest)
#include "ablation_plan_panel_test.moc"
