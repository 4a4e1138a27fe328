// The fleet matrix: its shape follows the catalog, every cell agrees with
// tb::compat::evaluateCompat for the branch's representative driver, and a
// click on a cell turns into the same question in the host panel and banner.
#include <QComboBox>
#include <QLineEdit>
#include <QTableView>
#include <QTest>

#include <memory>

#include "tb/compat/verdict.hpp"
#include "tb/compat/verdict_matrix.hpp"
#include "ui/catalog_session.h"
#include "ui/image/fleet_matrix_panel.h"
#include "ui/image/host_panel.h"
#include "ui/image/image_page.h"
#include "ui/image/verdict_banner.h"
#include "ui/image/verdict_matrix_model.h"
#include "ui/image/verdict_style.h"
#include "ui/studio_settings.h"
#include "ui_test_support.h"

using tb::compat::GpuClass;
using tb::compat::VerdictStatus;
using tb::ui::VerdictMatrixModel;

Q_DECLARE_METATYPE(tb::compat::GpuClass)
Q_DECLARE_METATYPE(tb::catalog::CpuArch)

class VerdictMatrixTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;
  std::unique_ptr<tb::ui::test::ImagePageHarness> harness_;
  tb::ui::CatalogSession* session_ = nullptr;  // owned by harness_
  tb::ui::ImagePage* page_ = nullptr;          // owned by harness_

  tb::ui::FleetMatrixPanel& matrix() {
    return *tb::ui::test::child<tb::ui::FleetMatrixPanel>(page_, "fleetMatrix");
  }
  VerdictMatrixModel& model() { return *matrix().model(); }
  tb::ui::HostPanel& host() { return *tb::ui::test::child<tb::ui::HostPanel>(page_, "hostPanel"); }
  tb::ui::VerdictBanner& banner() {
    return *tb::ui::test::child<tb::ui::VerdictBanner>(page_, "verdictBanner");
  }
  QTableView* matrixView() { return tb::ui::test::child<QTableView>(page_, "verdictMatrixView"); }

  QModelIndex cellOf(const QString& tag, int branch) {
    for (int row = 0; row < model().rowCount(); ++row) {
      for (int column = 0; column < model().columnCount(); ++column) {
        if (model().releaseTag(row) == tag && model().branch(column) == branch) {
          return model().index(row, column);
        }
      }
    }
    return {};
  }

 private Q_SLOTS:
  void init() {
    harness_ = std::make_unique<tb::ui::test::ImagePageHarness>(QSize(1300, 880));
    session_ = harness_->session.get();
    page_ = harness_->page.get();
  }

  void cleanup() {
    page_ = nullptr;
    session_ = nullptr;
    harness_.reset();
  }

  void rowsAreReleasesAndColumnsAreBranches() {
    const tb::catalog::Catalog& catalog = session_->catalog();
    QCOMPARE(model().rowCount(), static_cast<int>(catalog.releases.size()));
    QCOMPARE(model().columnCount(), static_cast<int>(catalog.driverBranches.size()));
    for (int row = 0; row < model().rowCount(); ++row) {
      QCOMPARE(model().headerData(row, Qt::Vertical, Qt::DisplayRole).toString(),
               QString::fromStdString(catalog.releases[static_cast<std::size_t>(row)].tag));
    }
    for (int column = 0; column < model().columnCount(); ++column) {
      const int branch = catalog.driverBranches[static_cast<std::size_t>(column)].branch;
      QCOMPARE(model().branch(column), branch);
      QVERIFY(model()
                  .headerData(column, Qt::Horizontal, Qt::DisplayRole)
                  .toString()
                  .startsWith(QStringLiteral("R%1").arg(branch)));
    }
  }

  void everyCellMatchesEvaluateCompat_data() {
    QTest::addColumn<GpuClass>("gpuClass");
    QTest::addColumn<tb::catalog::CpuArch>("arch");
    QTest::newRow("data-center amd64") << GpuClass::DataCenter << tb::catalog::CpuArch::Amd64;
    QTest::newRow("data-center arm64") << GpuClass::DataCenter << tb::catalog::CpuArch::Arm64;
    QTest::newRow("consumer amd64") << GpuClass::Consumer << tb::catalog::CpuArch::Amd64;
    QTest::newRow("workstation amd64") << GpuClass::Workstation << tb::catalog::CpuArch::Amd64;
  }

  void everyCellMatchesEvaluateCompat() {
    QFETCH(GpuClass, gpuClass);
    QFETCH(tb::catalog::CpuArch, arch);
    const tb::catalog::Catalog& catalog = session_->catalog();
    matrix().setGpuClass(gpuClass);
    matrix().setArch(arch);
    TB_COMPARE_ENUM(model().gpuClass(), gpuClass);

    int seen[3] = {0, 0, 0};
    for (int row = 0; row < model().rowCount(); ++row) {
      for (int column = 0; column < model().columnCount(); ++column) {
        const tb::catalog::Release* release =
            catalog.findRelease(model().releaseTag(row).toStdString());
        QVERIFY(release);
        tb::compat::CompatQuery query;
        query.driver = catalog.findBranch(model().branch(column))->representative;
        query.gpuName = tb::compat::representativeGpuName(gpuClass);
        query.arch = arch;
        query.today = tb::compat::todayUtc();
        const auto expected = tb::compat::evaluateCompat(*release, catalog, query).status;
        const QModelIndex index = model().index(row, column);
        TB_COMPARE_ENUM(
            static_cast<VerdictStatus>(index.data(VerdictMatrixModel::StatusRole).toInt()),
            expected);
        QCOMPARE(index.data(Qt::DisplayRole).toString(), tb::ui::cellText(expected));
        ++seen[static_cast<int>(expected)];
      }
    }
    // Guard against a matrix that is trivially uniform.
    QVERIFY(seen[static_cast<int>(VerdictStatus::Unsupported)] > 0);
    if (gpuClass == GpuClass::DataCenter && arch == tb::catalog::CpuArch::Amd64) {
      QVERIFY(seen[static_cast<int>(VerdictStatus::ForwardCompatible)] > 0);
      QVERIFY(seen[static_cast<int>(VerdictStatus::Supported)] > 0);
    }
    if (gpuClass == GpuClass::Consumer) {
      QCOMPARE(seen[static_cast<int>(VerdictStatus::ForwardCompatible)], 0);
    }
  }

  void cellsAreColouredByVerdictWithTheReasonsInTheTooltip() {
    matrix().setGpuClass(GpuClass::DataCenter);
    const QModelIndex compat = cellOf(QStringLiteral("30.01"), 535);
    QVERIFY(compat.isValid());
    QCOMPARE(compat.data(Qt::DisplayRole).toString(), QStringLiteral("compat"));
    const QColor fill = compat.data(Qt::BackgroundRole).value<QColor>();
    QCOMPARE(fill, tb::ui::tintColor(tb::ui::VerdictTone::ForwardCompatible, Qt::white, 0.22));
    const auto* verdict = model().verdict(compat);
    QVERIFY(verdict && !verdict->reasons.empty());
    const QString tooltip = compat.data(Qt::ToolTipRole).toString();
    QVERIFY2(tooltip.contains(QString::fromStdString(verdict->reasons.front()).toHtmlEscaped()),
             qPrintable(tooltip));
    QVERIFY(tooltip.contains(QStringLiteral("535.104.05")));

    const QModelIndex supported = cellOf(QStringLiteral("30.01"), 580);
    QCOMPARE(supported.data(Qt::DisplayRole).toString(), QStringLiteral("\u2713"));
    const QModelIndex unsupported = cellOf(QStringLiteral("30.03"), 535);
    QCOMPARE(unsupported.data(Qt::DisplayRole).toString(), QStringLiteral("\u2717"));
    QVERIFY(supported.data(Qt::BackgroundRole) != unsupported.data(Qt::BackgroundRole));
  }

  void gpuClassFollowsTheGpuTyped() {
    host().setGpuName(QStringLiteral("NVIDIA GeForce RTX 4090"));
    TB_COMPARE_ENUM(matrix().gpuClass(), GpuClass::Consumer);
    TB_COMPARE_ENUM(model().gpuClass(), GpuClass::Consumer);
    host().setGpuName(QStringLiteral("NVIDIA H100 80GB HBM3"));
    TB_COMPARE_ENUM(matrix().gpuClass(), GpuClass::DataCenter);
    // The user may look at another class; typing the same GPU keeps their choice.
    auto* classCombo = tb::ui::test::child<QComboBox>(page_, "gpuClassCombo");
    classCombo->setCurrentIndex(classCombo->findData(static_cast<int>(GpuClass::Workstation)));
    TB_COMPARE_ENUM(model().gpuClass(), GpuClass::Workstation);
    host().setGpuCount(4);
    TB_COMPARE_ENUM(model().gpuClass(), GpuClass::Workstation);
  }

  void hostCellIsMarkedForTheReleaseAndBranchTyped() {
    session_->selectRelease(QStringLiteral("30.02"));
    host().setGpuName(QStringLiteral("NVIDIA H100 80GB HBM3"));
    host().setDriverText(QStringLiteral("570.124.06"));
    int marked = 0;
    for (int row = 0; row < model().rowCount(); ++row) {
      for (int column = 0; column < model().columnCount(); ++column) {
        if (model().index(row, column).data(VerdictMatrixModel::HostCellRole).toBool()) ++marked;
      }
    }
    QCOMPARE(marked, 1);
    QVERIFY(cellOf(QStringLiteral("30.02"), 570).data(VerdictMatrixModel::HostCellRole).toBool());
  }

  void clickingACellChecksThatReleaseWithThatDriver() {
    page_->show();
    QVERIFY(QTest::qWaitForWindowExposed(page_));
    host().setGpuName(QStringLiteral("NVIDIA H100 80GB HBM3"));
    session_->selectRelease(QStringLiteral("30.03"));
    const QModelIndex cell = cellOf(QStringLiteral("30.01"), 535);
    QTableView* view = matrixView();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(cell).center());

    QCOMPARE(session_->selectedReleaseTag(), QStringLiteral("30.01"));
    QCOMPARE(tb::ui::test::child<QLineEdit>(page_, "driverEdit")->text(),
             QStringLiteral("535.104.05"));
    QCOMPARE(banner().tone(), tb::ui::toneFor(model().verdict(cell)->status));
    QCOMPARE(banner().tone(), tb::ui::VerdictTone::ForwardCompatible);
    QVERIFY(!host().hostFromDetection());
  }

  void clickingACellOfAnotherClassSwitchesTheGpu() {
    page_->show();
    QVERIFY(QTest::qWaitForWindowExposed(page_));
    host().setGpuName(QStringLiteral("NVIDIA GeForce RTX 4090"));
    matrix().setGpuClass(GpuClass::DataCenter);
    const QModelIndex cell = cellOf(QStringLiteral("30.01"), 535);
    QTableView* view = matrixView();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(cell).center());

    TB_COMPARE_ENUM(tb::compat::classifyGpu(host().input().gpuName.toStdString()),
                    GpuClass::DataCenter);
    QCOMPARE(banner().tone(), tb::ui::VerdictTone::ForwardCompatible);
  }
};

TB_UI_TEST_MAIN(VerdictMatrixTest)
#include "verdict_matrix_test.moc"
