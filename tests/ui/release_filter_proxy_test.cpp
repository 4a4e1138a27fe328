// The release table's model + proxy pair: what each column shows, how the
// filter matches (every word, anywhere in the row or its components, any
// case) and that versions sort as numbers, not as strings.
#include <QSignalSpy>
#include <QTest>

#include <memory>

#include "ui/catalog_session.h"
#include "ui/image/release_filter_proxy.h"
#include "ui/image/release_table_model.h"
#include "ui_test_support.h"

using tb::ui::ReleaseTableModel;

class ReleaseFilterProxyTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;
  std::unique_ptr<tb::ui::CatalogSession> session_;
  std::unique_ptr<ReleaseTableModel> model_;
  std::unique_ptr<tb::ui::ReleaseFilterProxy> proxy_;

  QStringList visibleTags() const {
    QStringList tags;
    for (int row = 0; row < proxy_->rowCount(); ++row) {
      tags.append(proxy_->index(row, 0).data(ReleaseTableModel::TagRole).toString());
    }
    return tags;
  }

  QString cell(const QString& tag, int column) const {
    const int row = model_->rowOf(tag);
    return model_->index(row, column).data(Qt::DisplayRole).toString();
  }

 private Q_SLOTS:
  void init() {
    session_ = std::make_unique<tb::ui::CatalogSession>(tb::ui::test::fixtureCatalog());
    model_ = std::make_unique<ReleaseTableModel>(*session_);
    proxy_ = std::make_unique<tb::ui::ReleaseFilterProxy>();
    proxy_->setSourceModel(model_.get());
    proxy_->sort(ReleaseTableModel::TagColumn, Qt::AscendingOrder);
  }

  void cleanup() {
    proxy_.reset();
    model_.reset();
    session_.reset();
  }

  void modelShowsTheFiveColumnsOfEachRelease() {
    QCOMPARE(model_->rowCount(), 3);
    QCOMPARE(model_->columnCount(), 5);
    QCOMPARE(cell(QStringLiteral("30.02"), ReleaseTableModel::TagColumn), QStringLiteral("30.02"));
    QCOMPARE(cell(QStringLiteral("30.02"), ReleaseTableModel::CudaColumn),
             QStringLiteral("12.10.0"));
    QCOMPARE(cell(QStringLiteral("30.02"), ReleaseTableModel::DriverColumn),
             QStringLiteral("\u2265 580"));
    QCOMPARE(cell(QStringLiteral("30.02"), ReleaseTableModel::ArchColumn),
             QStringLiteral("amd64, arm64"));
    QCOMPARE(cell(QStringLiteral("30.02"), ReleaseTableModel::TorchColumn),
             QStringLiteral("2.8.0.9+nv25.3"));
    QCOMPARE(model_->headerData(ReleaseTableModel::DriverColumn, Qt::Horizontal, Qt::DisplayRole)
                 .toString(),
             QStringLiteral("Required driver"));
  }

  void emptyFilterKeepsEveryRelease() {
    proxy_->setFilterText(QString());
    QCOMPARE(visibleTags(), (QStringList{QStringLiteral("30.01"), QStringLiteral("30.02"),
                                         QStringLiteral("30.03")}));
  }

  void filterMatchesATag() {
    proxy_->setFilterText(QStringLiteral("30.03"));
    QCOMPARE(visibleTags(), QStringList{QStringLiteral("30.03")});
  }

  void filterMatchesAnArchitecture() {
    proxy_->setFilterText(QStringLiteral("arm64"));
    QCOMPARE(visibleTags(), QStringList{QStringLiteral("30.02")});
  }

  void filterMatchesAComponentVersion() {
    proxy_->setFilterText(QStringLiteral("vllm 0.10"));
    QCOMPARE(visibleTags(), QStringList{QStringLiteral("30.01")});
  }

  void filterIgnoresCase() {
    proxy_->setFilterText(QStringLiteral("TRANSFORMER_ENGINE"));
    QCOMPARE(visibleTags(), QStringList{QStringLiteral("30.02")});
  }

  void everyWordOfTheFilterMustMatch() {
    proxy_->setFilterText(QStringLiteral("arm64 0.10.0"));
    QVERIFY(visibleTags().isEmpty());
  }

  void clearingTheFilterBringsRowsBack() {
    proxy_->setFilterText(QStringLiteral("no-such-release"));
    QCOMPARE(proxy_->rowCount(), 0);
    proxy_->setFilterText(QString());
    QCOMPARE(proxy_->rowCount(), 3);
  }

  void requiredDriverSortsNumerically() {
    proxy_->sort(ReleaseTableModel::DriverColumn, Qt::AscendingOrder);
    QCOMPARE(visibleTags(), (QStringList{QStringLiteral("30.03"), QStringLiteral("30.01"),
                                         QStringLiteral("30.02")}));
  }

  void cudaVersionsSortAsNumbersNotText() {
    // As text "12.10.0" < "12.8.0"; as a version it is the newest.
    proxy_->sort(ReleaseTableModel::CudaColumn, Qt::AscendingOrder);
    QCOMPARE(visibleTags(), (QStringList{QStringLiteral("30.01"), QStringLiteral("30.03"),
                                         QStringLiteral("30.02")}));
  }

  void loadingACatalogResetsTheModel() {
    QSignalSpy reset(model_.get(), &QAbstractItemModel::modelReset);
    QVERIFY(
        session_->loadExtraCatalog(tb::ui::test::testDataFile(QStringLiteral("extra-release.json")))
            .ok());
    QCOMPARE(reset.count(), 1);
    QCOMPARE(model_->rowCount(), 4);
    QVERIFY(model_->rowOf(QStringLiteral("26.01")) >= 0);
  }
};

TB_UI_TEST_MAIN(ReleaseFilterProxyTest)
#include "release_filter_proxy_test.moc"
