// The Image page as a user drives it: choose a release, type a driver and a
// GPU, watch the banner. Expected statuses come from the verdict rules on the
// fixture catalog and are cross-checked against tb::compat::evaluateCompat,
// so a banner that shows a stale or invented verdict fails.
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "tb/compat/verdict.hpp"
#include "ui/catalog_session.h"
#include "ui/image/host_panel.h"
#include "ui/image/image_page.h"
#include "ui/image/release_details_view.h"
#include "ui/image/release_table_model.h"
#include "ui/image/verdict_banner.h"
#include "ui/studio_settings.h"
#include "ui_test_support.h"

using tb::ui::VerdictTone;

class ImagePageTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;
  std::unique_ptr<tb::ui::test::ImagePageHarness> harness_;
  tb::ui::CatalogSession* session_ = nullptr;  // owned by harness_
  tb::ui::ImagePage* page_ = nullptr;          // owned by harness_

  template <class T>
  T* find(const char* name) {
    return tb::ui::test::child<T>(page_, name);
  }
  tb::ui::HostPanel& host() { return *find<tb::ui::HostPanel>("hostPanel"); }
  tb::ui::VerdictBanner& banner() { return *find<tb::ui::VerdictBanner>("verdictBanner"); }
  QLineEdit* driverEdit() { return find<QLineEdit>("driverEdit"); }
  QPushButton* detectButton() { return find<QPushButton>("detectButton"); }

  // Clicks the table row of `tag`, as a user would.
  void clickRelease(const QString& tag) {
    auto* view = find<QTableView>("releaseView");
    for (int row = 0; row < view->model()->rowCount(); ++row) {
      const QModelIndex index = view->model()->index(row, 0);
      if (index.data(tb::ui::ReleaseTableModel::TagRole).toString() == tag) {
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());
        return;
      }
    }
    QFAIL(qPrintable(QStringLiteral("no row for %1").arg(tag)));
  }

  void typeDriver(const QString& text) {
    driverEdit()->clear();
    QTest::keyClicks(driverEdit(), text);
  }

  // The verdict the core gives for what the page currently shows.
  tb::compat::VerdictStatus coreStatus() {
    const tb::ui::HostInput in = host().input();
    tb::compat::CompatQuery query;
    query.driver = in.driver;
    query.gpuName = in.gpuName.toStdString();
    query.gpuCount = in.gpuCount;
    query.arch = in.arch;
    query.today = tb::compat::todayUtc();
    return tb::compat::evaluateCompat(*session_->selectedRelease(), session_->catalog(), query)
        .status;
  }

 private Q_SLOTS:
  void init() {
    harness_ = std::make_unique<tb::ui::test::ImagePageHarness>(QSize(1200, 860));
    session_ = harness_->session.get();
    page_ = harness_->page.get();
  }

  void cleanup() {
    page_ = nullptr;
    session_ = nullptr;
    harness_.reset();
  }

  void newestReleaseIsChosenWhenNothingIsSaved() {
    QCOMPARE(session_->selectedReleaseTag(), QStringLiteral("30.03"));
    QCOMPARE(banner().statusText(), QStringLiteral("Driver needed"));
    QCOMPARE(banner().tone(), VerdictTone::Incomplete);
  }

  void choosingAReleaseShowsItsDetails() {
    page_->show();
    QVERIFY(QTest::qWaitForWindowExposed(page_));
    clickRelease(QStringLiteral("30.02"));
    QCOMPARE(session_->selectedReleaseTag(), QStringLiteral("30.02"));
    const auto* details = find<tb::ui::ReleaseDetailsView>("releaseDetails");
    QCOMPARE(
        details->imageReference(),
        QStringLiteral("registry.example.invalid/ui-test/training-nv-pytorch:30.02-serverless"));
    QVERIFY(details->componentLines().contains(QStringLiteral("vllm 0.11.0")));
    QVERIFY(details->title().contains(QStringLiteral("30.02")));
  }

  void supportedDriverTurnsTheBannerGreen() {
    session_->selectRelease(QStringLiteral("30.01"));
    host().setGpuName(QStringLiteral("NVIDIA H100 80GB HBM3"));
    typeDriver(QStringLiteral("580.65.06"));
    QCOMPARE(banner().statusText(), QStringLiteral("Supported"));
    QCOMPARE(banner().tone(), VerdictTone::Supported);
    QCOMPARE(banner().accent(), tb::ui::accentColor(VerdictTone::Supported));
    TB_COMPARE_ENUM(coreStatus(), tb::compat::VerdictStatus::Supported);
    QVERIFY(banner().subtitleText().contains(QStringLiteral("580.65.06")));
  }

  void oldDriverOnADataCenterGpuIsForwardCompatible() {
    session_->selectRelease(QStringLiteral("30.01"));
    host().setGpuName(QStringLiteral("NVIDIA H100 80GB HBM3"));
    typeDriver(QStringLiteral("535.104.05"));
    QCOMPARE(banner().statusText(), QStringLiteral("Forward-compatible"));
    QCOMPARE(banner().tone(), VerdictTone::ForwardCompatible);
    QCOMPARE(banner().accent(), tb::ui::accentColor(VerdictTone::ForwardCompatible));
    TB_COMPARE_ENUM(coreStatus(), tb::compat::VerdictStatus::ForwardCompatible);
    QVERIFY(!banner().warnings().isEmpty());
    QVERIFY(banner().actions().join(QLatin1Char(' ')).contains(QStringLiteral("R575")));
  }

  void oldDriverOnAConsumerGpuIsUnsupported() {
    session_->selectRelease(QStringLiteral("30.01"));
    host().setGpuName(QStringLiteral("NVIDIA GeForce RTX 4090"));
    typeDriver(QStringLiteral("535.104.05"));
    QCOMPARE(banner().statusText(), QStringLiteral("Unsupported"));
    QCOMPARE(banner().tone(), VerdictTone::Unsupported);
    QCOMPARE(banner().accent(), tb::ui::accentColor(VerdictTone::Unsupported));
    TB_COMPARE_ENUM(coreStatus(), tb::compat::VerdictStatus::Unsupported);
    QVERIFY(
        banner().actions().join(QLatin1Char(' ')).contains(QStringLiteral("Upgrade the driver")));
  }

  void driverBelowTheBranchMinimumIsUnsupported() {
    session_->selectRelease(QStringLiteral("30.01"));
    host().setGpuName(QStringLiteral("NVIDIA H100 80GB HBM3"));
    typeDriver(QStringLiteral("535.54.03"));  // R535 is allowed only from 535.86
    QCOMPARE(banner().tone(), VerdictTone::Unsupported);
    TB_COMPARE_ENUM(coreStatus(), tb::compat::VerdictStatus::Unsupported);
  }

  void invalidDriverShowsTheParserError() {
    session_->selectRelease(QStringLiteral("30.01"));
    typeDriver(QStringLiteral("57x.1"));
    QCOMPARE(banner().tone(), VerdictTone::Incomplete);
    QCOMPARE(banner().accent(), tb::ui::accentColor(VerdictTone::Incomplete));
    QCOMPARE(banner().statusText(), QStringLiteral("Invalid driver version"));
    QVERIFY2(banner().subtitleText().contains(QStringLiteral("'57x.1'")),
             qPrintable(banner().subtitleText()));
    QVERIFY(host().input().driverError.contains(QStringLiteral("57x.1")));
    QCOMPARE(find<QLabel>("driverHint")->text(), QStringLiteral("Not a driver version"));
  }

  void bannerFollowsEveryKeystroke() {
    session_->selectRelease(QStringLiteral("30.03"));
    driverEdit()->clear();
    QTest::keyClicks(driverEdit(), QStringLiteral("580"));
    QCOMPARE(banner().tone(), VerdictTone::Incomplete);  // one part is not a version yet
    QTest::keyClicks(driverEdit(), QStringLiteral(".65"));
    QCOMPARE(banner().tone(), VerdictTone::Supported);
    for (int i = 0; i < 6; ++i) QTest::keyClick(driverEdit(), Qt::Key_Backspace);
    QCOMPARE(banner().statusText(), QStringLiteral("Driver needed"));
  }

  void typedGpuNameReachesTheVerdict() {
    session_->selectRelease(QStringLiteral("30.01"));
    typeDriver(QStringLiteral("535.104.05"));
    QLineEdit* gpuEdit = find<QComboBox>("gpuCombo")->lineEdit();
    gpuEdit->clear();
    QTest::keyClicks(gpuEdit, QStringLiteral("NVIDIA A100-SXM4-80GB"));
    QCOMPARE(host().input().gpuName, QStringLiteral("NVIDIA A100-SXM4-80GB"));
    QCOMPARE(banner().tone(), VerdictTone::ForwardCompatible);
    QVERIFY(!host().hostFromDetection());
  }

  void armHostOnAnAmd64OnlyReleaseNamesTheArmRelease() {
    session_->selectRelease(QStringLiteral("30.01"));
    host().setGpuName(QStringLiteral("NVIDIA GH200 480GB"));
    typeDriver(QStringLiteral("580.65.06"));
    auto* arch = find<QComboBox>("archCombo");
    arch->setCurrentIndex(arch->findData(QStringLiteral("arm64")));
    QCOMPARE(banner().tone(), VerdictTone::Unsupported);
    TB_COMPARE_ENUM(coreStatus(), tb::compat::VerdictStatus::Unsupported);
    QVERIFY2(banner().actions().join(QLatin1Char(' ')).contains(QStringLiteral("30.02")),
             qPrintable(banner().actions().join(QLatin1Char('|'))));
  }

  void bannerIsPaintedInTheVerdictColour() {
    page_->show();
    QVERIFY(QTest::qWaitForWindowExposed(page_));
    session_->selectRelease(QStringLiteral("30.01"));
    host().setGpuName(QStringLiteral("NVIDIA H100 80GB HBM3"));
    const auto stripeColour = [this] {
      const QImage image = banner().grab().toImage();
      return image.pixelColor(2, image.height() / 2);
    };
    typeDriver(QStringLiteral("580.65.06"));
    QCOMPARE(stripeColour(), tb::ui::accentColor(VerdictTone::Supported));
    typeDriver(QStringLiteral("535.104.05"));
    QCOMPARE(stripeColour(), tb::ui::accentColor(VerdictTone::ForwardCompatible));
    typeDriver(QStringLiteral("470.42.01"));
    QCOMPARE(stripeColour(), tb::ui::accentColor(VerdictTone::Unsupported));
    typeDriver(QStringLiteral("bogus"));
    QCOMPARE(stripeColour(), tb::ui::accentColor(VerdictTone::Incomplete));
  }

  void openingThePageDetectsTheHostOnce() {
    QSignalSpy finished(&host(), &tb::ui::HostPanel::detectionFinished);
    page_->show();
    QVERIFY(page_->isBusy() || finished.count() == 1);
    QVERIFY(finished.count() == 1 || finished.wait(20000));
    QVERIFY(!page_->isBusy());
    QVERIFY2(host().detectionSummary().contains(QStringLiteral("no NVIDIA driver on this machine")),
             qPrintable(host().detectionSummary()));
    page_->hide();
    page_->show();
    QTest::qWait(50);
    QCOMPARE(finished.count(), 1);
  }

  void detectionKeepsWhatTheUserTyped() {
    typeDriver(QStringLiteral("550.54.15"));
    QSignalSpy finished(&host(), &tb::ui::HostPanel::detectionFinished);
    host().startDetection(tb::ui::DetectionFill::UnlessTyped);
    QVERIFY(finished.wait(20000));
    QCOMPARE(driverEdit()->text(), QStringLiteral("550.54.15"));
  }

  void detectButtonFillsTheFieldsFromNvidiaSmi() {
    QTemporaryDir dir;
    const QString script = dir.filePath(QStringLiteral("nvidia-smi"));
    QFile file(script);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(
        "#!/bin/sh\nprintf '570.124.06, NVIDIA H100 80GB HBM3, 2\\n"
        "570.124.06, NVIDIA H100 80GB HBM3, 2\\n'\n");
    file.close();
    file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    const QByteArray previous = qgetenv("TRAINBENCH_NVIDIA_SMI");
    qputenv("TRAINBENCH_NVIDIA_SMI", script.toLocal8Bit());

    session_->selectRelease(QStringLiteral("30.01"));
    typeDriver(QStringLiteral("450.80.02"));
    QSignalSpy finished(&host(), &tb::ui::HostPanel::detectionFinished);
    QTest::mouseClick(detectButton(), Qt::LeftButton);
    QVERIFY(!detectButton()->isEnabled());  // busy while the worker runs
    QVERIFY(finished.wait(20000));
    qputenv("TRAINBENCH_NVIDIA_SMI", previous);

    QVERIFY(detectButton()->isEnabled());
    QCOMPARE(driverEdit()->text(), QStringLiteral("570.124.06"));
    QCOMPARE(host().input().gpuName, QStringLiteral("NVIDIA H100 80GB HBM3"));
    QCOMPARE(find<QSpinBox>("gpuCountSpin")->value(), 2);
    QVERIFY(host().hostFromDetection());
    QVERIFY2(host().detectionSummary().contains(QStringLiteral("nvidia-smi")),
             qPrintable(host().detectionSummary()));
    // 30.01 needs 575 and allows only R470 and R535 for forward compatibility.
    QCOMPARE(banner().tone(), VerdictTone::Unsupported);
    TB_COMPARE_ENUM(coreStatus(), tb::compat::VerdictStatus::Unsupported);
  }
};

TB_UI_TEST_MAIN(ImagePageTest)
#include "image_page_test.moc"
