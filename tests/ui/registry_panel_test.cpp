// The registry panel against a real registry: Debian's docker-registry 2.8
// on 127.0.0.1 (the fixture of the integration tests), seeded with a
// two-platform index whose configs declare CUDA, plus a single-platform tag.
// Cancel is tested against a socket that accepts and never answers, offline
// against a closed port, and credentials against `silly` auth with the token
// server, on a machine without a keychain service (D-Bus pointed nowhere).
#include "ui/image/registry_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <memory>

#include "registry_test_support.hpp"
#include "silent_socket.hpp"
#include "tb/compat/verdict.hpp"
#include "tb/registry/http_transport.hpp"
#include "ui/image/host_panel.h"
#include "ui/image/registry_arch_delegate.h"
#include "ui/image/registry_credential_store.h"
#include "ui/image/registry_lookup.h"
#include "ui/image/registry_tag_model.h"
#include "ui/image/registry_tag_sort_proxy.h"
#include "ui/image/verdict_banner.h"
#include "ui/studio_settings.h"
#include "ui_test_support.h"

namespace rt = tb::registry::test;
using tb::ui::RegistryPanel;
using tb::ui::RegistryTagModel;

namespace {

constexpr int kCallTimeoutMs = 20000;
const QStringList kTwoPlatformTags{QStringLiteral("30.03-serverless"),
                                   QStringLiteral("30.10-serverless"), QStringLiteral("30.9-rc"),
                                   QStringLiteral("29.12-serverless")};
const QString kAmd64OnlyTag = QStringLiteral("30.01-amd64");

// Re-tags the amd64 image manifest alone, so one tag has a single platform.
tb::Status tagSinglePlatform(const std::string& host, const std::string& digest,
                             const std::string& tag) {
  const auto transport = tb::registry::makeCurlTransport({});
  const std::string base = "http://" + host + "/v2/" + rt::kRepository + "/manifests/";
  tb::registry::HttpRequest get;
  get.url = base + digest;
  get.headers.push_back({"Accept", std::string(tb::registry::kOciManifest)});
  auto manifest = transport->send(get);
  if (!manifest) return std::move(manifest).error();
  tb::registry::HttpRequest put;
  put.method = "PUT";
  put.url = base + tag;
  put.headers.push_back({"Content-Type", std::string(tb::registry::kOciManifest)});
  put.body = manifest->body;
  auto stored = transport->send(put);
  if (!stored) return std::move(stored).error();
  if (stored->status != 201) {
    return tb::makeError(tb::ErrorKind::Runtime,
                         "PUT " + tag + ": HTTP " + std::to_string(stored->status));
  }
  return {};
}

// The panel's widgets, by the object names the panel gives them.
using tb::ui::test::child;

QComboBox* hostCombo(const QObject* panel) { return child<QComboBox>(panel, "registryHost"); }
QLineEdit* repositoryEdit(const QObject* panel) {
  return child<QLineEdit>(panel, "registryRepository");
}
QLineEdit* userEdit(const QObject* panel) { return child<QLineEdit>(panel, "registryUser"); }
QLineEdit* secretEdit(const QObject* panel) { return child<QLineEdit>(panel, "registrySecret"); }
QCheckBox* plainHttpBox(const QObject* panel) {
  return child<QCheckBox>(panel, "registryPlainHttp");
}
QLabel* insecureWarning(const QObject* panel) {
  return child<QLabel>(panel, "registryInsecureWarning");
}
QLabel* storageLabel(const QObject* panel) { return child<QLabel>(panel, "registryStorageNote"); }
QPushButton* refreshButton(const QObject* panel) {
  return child<QPushButton>(panel, "registryRefresh");
}
QPushButton* cancelButton(const QObject* panel) {
  return child<QPushButton>(panel, "registryCancel");
}
QProgressBar* busyIndicator(const QObject* panel) {
  return child<QProgressBar>(panel, "registryBusy");
}
QLabel* statusLabel(const QObject* panel) { return child<QLabel>(panel, "registryStatus"); }
QTableView* tagView(const QObject* panel) { return child<QTableView>(panel, "registryTags"); }
QPushButton* checkButton(const QObject* panel) {
  return child<QPushButton>(panel, "registryCheck");
}
QPushButton* useCatalogButton(const QObject* panel) {
  return child<QPushButton>(panel, "registryUseCatalog");
}
QLabel* declarationLabel(const QObject* panel) {
  return child<QLabel>(panel, "registryDeclaration");
}

std::vector<std::string> toStd(const QStringList& list) {
  std::vector<std::string> out;
  for (const QString& item : list) out.push_back(item.toStdString());
  return out;
}

}  // namespace

class RegistryPanelTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;
  std::unique_ptr<rt::RegistryServer> server_;
  std::unique_ptr<tb::ui::test::ImagePageHarness> harness_;
  RegistryPanel* panel_ = nullptr;  // owned by harness_

  void pointAt(const QString& host, bool plainHttp = true) {
    hostCombo(panel_)->setEditText(host);
    repositoryEdit(panel_)->setText(QString::fromLatin1(rt::kRepository));
    plainHttpBox(panel_)->setChecked(plainHttp);
  }

  void refreshAndWait() {
    QVERIFY(refreshButton(panel_)->isEnabled());
    QTest::mouseClick(refreshButton(panel_), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!panel_->isBusy(), kCallTimeoutMs);
  }

  QStringList shownTags() const {
    QStringList tags;
    const auto* proxy = panel_->tagProxy();
    for (int row = 0; row < proxy->rowCount(); ++row) {
      tags << proxy->index(row, 0).data(RegistryTagModel::TagRole).toString();
    }
    return tags;
  }

  void selectTag(const QString& tag) {
    const auto* proxy = panel_->tagProxy();
    for (int row = 0; row < proxy->rowCount(); ++row) {
      const QModelIndex index = proxy->index(row, RegistryTagModel::TagColumn);
      if (index.data(RegistryTagModel::TagRole).toString() == tag) {
        QTableView* view = tagView(panel_);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());
        return;
      }
    }
    QFAIL(qPrintable(QStringLiteral("no tag row %1").arg(tag)));
  }

  QString registryHost() const { return QString::fromStdString(server_->host()); }
  tb::ui::HostPanel* hostPanel() const {
    return child<tb::ui::HostPanel>(harness_->page.get(), "hostPanel");
  }

 private Q_SLOTS:
  void initTestCase() {
    // No keychain service here, whatever the machine has: the tests check
    // the session-only path and must never touch a real keychain.
    qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/trainbench-test-bus");
    server_ = std::make_unique<rt::RegistryServer>(rt::RegistryAuth::None);
    QVERIFY2(server_->startError().empty(), server_->startError().c_str());
    auto pushed =
        rt::pushTwoPlatformImage(server_->host(), rt::kRepository, toStd(kTwoPlatformTags));
    QVERIFY2(pushed, pushed ? "" : pushed.error().message.c_str());
    const tb::Status single = tagSinglePlatform(server_->host(), pushed->platformDigests.front(),
                                                kAmd64OnlyTag.toStdString());
    QVERIFY2(single, single ? "" : single.error().message.c_str());
  }

  void init() {
    harness_ = std::make_unique<tb::ui::test::ImagePageHarness>(QSize(1600, 1000));
    panel_ = child<RegistryPanel>(harness_->page.get(), "registryPanel");
    harness_->page->show();
    QVERIFY(QTest::qWaitForWindowExposed(harness_->page.get()));
    // Host detection starts on show; let it finish so it cannot refill the
    // driver field under a test.
    QTRY_VERIFY_WITH_TIMEOUT(!harness_->page->isBusy(), kCallTimeoutMs);
    hostPanel()->setHostFromDetection(false);
  }

  void cleanup() {
    panel_ = nullptr;
    harness_.reset();
  }

  void refreshListsTagsNewestFirstWithArchitectureBadges() {
    pointAt(registryHost());
    QSignalSpy busy(panel_, &RegistryPanel::busyChanged);
    refreshAndWait();
    QCOMPARE(busy.count(), 2);
    QCOMPARE(busy.at(0).at(0).toBool(), true);
    QCOMPARE(busy.at(1).at(0).toBool(), false);
    QVERIFY(busyIndicator(panel_)->isHidden());

    // Numeric order, newest first: 30.10 after 30.9, not before it as text.
    QCOMPARE(shownTags(),
             (QStringList{QStringLiteral("30.10-serverless"), QStringLiteral("30.9-rc"),
                          QStringLiteral("30.03-serverless"), kAmd64OnlyTag,
                          QStringLiteral("29.12-serverless")}));
    const auto* proxy = panel_->tagProxy();
    for (int row = 0; row < proxy->rowCount(); ++row) {
      const QModelIndex index = proxy->index(row, RegistryTagModel::ArchitecturesColumn);
      const QString tag = index.data(RegistryTagModel::TagRole).toString();
      QVERIFY(index.data(RegistryTagModel::PlatformsKnownRole).toBool());
      const QStringList expected =
          tag == kAmd64OnlyTag ? QStringList{QStringLiteral("amd64")}
                               : QStringList{QStringLiteral("amd64"), QStringLiteral("arm64")};
      QCOMPARE(index.data(RegistryTagModel::ArchitecturesRole).toStringList(), expected);
    }
    // One chip per architecture: the two-platform row is drawn wider.
    auto* delegate = tagView(panel_)->itemDelegateForColumn(RegistryTagModel::ArchitecturesColumn);
    QVERIFY(qobject_cast<tb::ui::RegistryArchDelegate*>(delegate) != nullptr);
    QStyleOptionViewItem option;
    option.font = tagView(panel_)->font();
    const int two = delegate->sizeHint(option, proxy->index(0, 1)).width();
    const int one = delegate->sizeHint(option, proxy->index(3, 1)).width();
    QVERIFY2(two > one, qPrintable(QStringLiteral("%1 <= %2").arg(two).arg(one)));
    QVERIFY(tb::ui::RegistryArchDelegate::chipColor(QStringLiteral("amd64")) !=
            tb::ui::RegistryArchDelegate::chipColor(QStringLiteral("arm64")));
    QVERIFY(statusLabel(panel_)->text().contains(QStringLiteral("5 tags")));
  }

  void cancelDuringASlowRefreshReturnsPromptly() {
    const rt::SilentSocket silent;
    QVERIFY2(silent.error().empty(), silent.error().c_str());
    pointAt(QString::fromStdString(silent.host()));
    QTest::mouseClick(refreshButton(panel_), Qt::LeftButton);
    QVERIFY(panel_->isBusy());
    QVERIFY(busyIndicator(panel_)->isVisible());
    QVERIFY(cancelButton(panel_)->isEnabled());
    QVERIFY(!refreshButton(panel_)->isEnabled());
    QTest::qWait(400);  // the request is in flight, waiting for an answer
    QVERIFY(panel_->isBusy());

    QElapsedTimer timer;
    timer.start();
    QTest::mouseClick(cancelButton(panel_), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!panel_->isBusy(), 5000);
    QVERIFY2(timer.elapsed() < 2500, qPrintable(QString::number(timer.elapsed())));
    QVERIFY2(statusLabel(panel_)->text().contains(QStringLiteral("Cancelled")),
             qPrintable(statusLabel(panel_)->text()));
    QVERIFY(refreshButton(panel_)->isEnabled());
    QVERIFY(!cancelButton(panel_)->isEnabled());
  }

  void checkThisTagJudgesTheVerdictOnTheImagesDeclaration() {
    tb::ui::HostPanel* host = hostPanel();
    host->setGpuName(QStringLiteral("NVIDIA H100 80GB HBM3"));
    host->setDriverText(QStringLiteral("570.124.06"));
    harness_->session->selectRelease(QStringLiteral("30.03"));
    auto* banner = child<tb::ui::VerdictBanner>(harness_->page.get(), "verdictBanner");
    const tb::ui::VerdictTone catalogTone = banner->tone();

    pointAt(registryHost());
    refreshAndWait();
    selectTag(QStringLiteral("30.03-serverless"));
    QTest::mouseClick(checkButton(panel_), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!panel_->isBusy(), kCallTimeoutMs);

    const QString declaration = declarationLabel(panel_)->text();
    QVERIFY2(declaration.contains(QStringLiteral("linux/amd64: CUDA_VERSION 13.0.2")),
             qPrintable(declaration));
    QVERIFY(declaration.contains(QStringLiteral("linux/arm64/v8")));
    QVERIFY(declaration.contains(QStringLiteral("NVIDIA_REQUIRE_CUDA cuda>=13.0")));
    QVERIFY(useCatalogButton(panel_)->isVisible());

    // The catalog says driver >= 570; the image says 580: the banner follows
    // the image, and its reasons say where the value came from.
    const auto declared = panel_->declaredRelease(tb::catalog::CpuArch::Amd64);
    QVERIFY(declared.has_value());
    QCOMPARE(declared->release.requiredDriverMajor, 580);
    QCOMPARE(declared->release.cudaVersion, std::string("13.0.2"));
    tb::compat::CompatQuery query;
    query.driver = tb::ui::test::driverVersion("570.124.06");
    query.gpuName = "NVIDIA H100 80GB HBM3";
    query.arch = tb::catalog::CpuArch::Amd64;
    query.today = tb::compat::todayUtc();
    const auto expected =
        tb::compat::evaluateCompat(declared->release, harness_->session->catalog(), query);
    TB_COMPARE_ENUM(expected.status, tb::compat::VerdictStatus::Unsupported);
    QVERIFY(banner->tone() != catalogTone);
    const QString reasons = banner->reasons().join(QLatin1Char('\n'));
    QVERIFY2(reasons.contains(QStringLiteral("CUDA_DRIVER_VERSION=580.95.05")),
             qPrintable(reasons));

    QTest::mouseClick(useCatalogButton(panel_), Qt::LeftButton);
    QVERIFY(banner->tone() == catalogTone);
    QVERIFY(!panel_->declaredRelease(tb::catalog::CpuArch::Amd64).has_value());
  }

  void anUnreachableRegistryIsReportedAndTheCatalogKeepsWorking() {
    const QString closed = QStringLiteral("127.0.0.1:%1").arg(rt::freeLoopbackPort());
    pointAt(closed);
    refreshAndWait();
    const QString status = statusLabel(panel_)->text();
    QVERIFY2(status.startsWith(QStringLiteral("Offline or unreachable: ") + closed),
             qPrintable(status));
    QVERIFY(status.contains(QStringLiteral("keep using the catalog")));
    QCOMPARE(panel_->tagProxy()->rowCount(), 0);

    // The catalog half still answers.
    hostPanel()->setDriverText(QStringLiteral("580.65.06"));
    harness_->session->selectRelease(QStringLiteral("30.02"));
    QVERIFY(child<tb::ui::VerdictBanner>(harness_->page.get(), "verdictBanner")->tone() !=
            tb::ui::VerdictTone::Incomplete);
  }

  void credentialsGoThroughThePanelAndStayOutOfSettingsAndMessages() {
    auto seeded = rt::startSeededRegistry(rt::RegistryAuth::Silly);
    QVERIFY2(seeded->error.empty(), seeded->error.c_str());
    const QString host = QString::fromStdString(seeded->server->host());
    const QString secret = QString::fromLatin1(rt::kSecretPassword);
    pointAt(host);
    userEdit(panel_)->setText(QStringLiteral("alice"));
    secretEdit(panel_)->setText(secret);
    refreshAndWait();
    QVERIFY2(panel_->tagProxy()->rowCount() == 3, qPrintable(statusLabel(panel_)->text()));

    // The token request carried the user's Basic credentials.
    const QByteArray basic =
        QByteArray("Basic ") + QByteArray("alice:").append(rt::kSecretPassword).toBase64();
    bool sent = false;
    for (const rt::ReceivedRequest& request : seeded->tokenServer->requests()) {
      sent = sent || QByteArray::fromStdString(request.authorization) == basic;
    }
    QVERIFY(sent);

    // No keychain here: the panel says the secret lives for this session only.
    tb::ui::RegistryCredentialStore* store = panel_->credentialStore();
    QTRY_VERIFY_WITH_TIMEOUT(store->storage() == tb::ui::SecretStorage::SessionOnly, 10000);
    QVERIFY2(storageLabel(panel_)->text().contains(QStringLiteral("this session only")),
             qPrintable(storageLabel(panel_)->text()));
    // ...and another panel of this session finds it again.
    RegistryPanel second(*harness_->session, tb::ui::SettingsAccess::ReadOnly, nullptr,
                         QStringLiteral("TrainBench Studio test"));
    hostCombo(&second)->setEditText(host);
    QTRY_COMPARE(userEdit(&second)->text(), QStringLiteral("alice"));
    QCOMPARE(secretEdit(&second)->text(), secret);

    // A refused user: the message names the registry's error, never the secret.
    userEdit(panel_)->setText(QStringLiteral("rejected"));
    refreshAndWait();
    const QString refused = statusLabel(panel_)->text();
    QVERIFY2(refused.contains(QStringLiteral("UNAUTHORIZED")), qPrintable(refused));
    QVERIFY(refused.contains(host));
    for (QLabel* label : harness_->page->findChildren<QLabel*>()) {
      QVERIFY2(!label->text().contains(secret), qPrintable(label->objectName()));
    }
    QFile settings(tb::ui::StudioSettings::fileName());
    if (settings.open(QIODevice::ReadOnly))
      QVERIFY(!settings.readAll().contains(rt::kSecretPassword));
  }

  void plainHttpIsOnlyForLoopbackAndSaidLoudly() {
    pointAt(QStringLiteral("registry.example.com"), false);
    QVERIFY(!plainHttpBox(panel_)->isEnabled());
    QVERIFY(insecureWarning(panel_)->isHidden());
    pointAt(QStringLiteral("localhost:5000"), false);
    QVERIFY(plainHttpBox(panel_)->isEnabled());
    plainHttpBox(panel_)->setChecked(true);
    QVERIFY(insecureWarning(panel_)->isVisible());
    QVERIFY(insecureWarning(panel_)->text().startsWith(QStringLiteral("INSECURE")));
    // Moving to a remote host switches plain HTTP off again.
    hostCombo(panel_)->setEditText(QStringLiteral("registry.example.com"));
    QVERIFY(!plainHttpBox(panel_)->isChecked());
    QVERIFY(insecureWarning(panel_)->isHidden());
    const auto refused = tb::ui::makeLookupClient(
        {"registry.example.com", rt::kRepository, std::nullopt, true}, tb::StopToken{});
    QVERIFY(!refused);
    QVERIFY(refused.error().message.find("registry.example.com") != std::string::npos);
  }

  void tagsSortByTheirNumbers() {
    QVERIFY(tb::ui::tagOlderThan("25.9-serverless", "25.10-serverless"));
    QVERIFY(!tb::ui::tagOlderThan("25.10-serverless", "25.9-serverless"));
    QVERIFY(tb::ui::tagOlderThan("25.09", "25.10"));
    QVERIFY(tb::ui::tagOlderThan("25.10", "25.10-serverless"));
    QVERIFY(!tb::ui::tagOlderThan("25.10", "25.10"));
  }

  // Issue 8's review: host, repository and user were forgotten on restart.
  void aWorkingConnectionIsRememberedWithoutItsSecret() {
    const QString host = registryHost();
    pointAt(host);
    userEdit(panel_)->setText(QStringLiteral("bob"));
    secretEdit(panel_)->setText(QString::fromLatin1(rt::kSecretPassword));
    refreshAndWait();
    QVERIFY2(panel_->tagProxy()->rowCount() > 0, qPrintable(statusLabel(panel_)->text()));
    // A call that fails is not remembered over the one that worked.
    pointAt(QStringLiteral("127.0.0.1:%1").arg(rt::freeLoopbackPort()));
    refreshAndWait();

    RegistryPanel restarted(*harness_->session, tb::ui::SettingsAccess::ReadWrite, nullptr,
                            QStringLiteral("TrainBench Studio test"));
    QCOMPARE(hostCombo(&restarted)->currentText(), host);
    QCOMPARE(repositoryEdit(&restarted)->text(), QString::fromLatin1(rt::kRepository));
    QCOMPARE(userEdit(&restarted)->text(), QStringLiteral("bob"));
    QFile settings(tb::ui::StudioSettings::fileName());
    QVERIFY(settings.open(QIODevice::ReadOnly));
    const QByteArray stored = settings.readAll();
    QVERIFY(stored.contains("registry"));
    QVERIFY(!stored.contains(rt::kSecretPassword));
  }

  void aReadOnlyPanelRemembersNothing() {
    RegistryPanel readOnly(*harness_->session, tb::ui::SettingsAccess::ReadOnly, nullptr,
                           QStringLiteral("TrainBench Studio test"));
    const QString defaultHost = hostCombo(&readOnly)->currentText();
    hostCombo(&readOnly)->setEditText(registryHost());
    repositoryEdit(&readOnly)->setText(QString::fromLatin1(rt::kRepository));
    plainHttpBox(&readOnly)->setChecked(true);
    readOnly.refresh();
    QTRY_VERIFY_WITH_TIMEOUT(!readOnly.isBusy(), kCallTimeoutMs);
    QVERIFY(readOnly.tagProxy()->rowCount() > 0);
    RegistryPanel restarted(*harness_->session, tb::ui::SettingsAccess::ReadWrite, nullptr,
                            QStringLiteral("TrainBench Studio test"));
    QCOMPARE(hostCombo(&restarted)->currentText(), defaultHost);
  }

  // Last: the Image page with the panel filled, for docs/images when
  // TB_IMAGE_PAGE_SCREENSHOT names a file.
  void imagePageWithTheRegistryPanelFilled() {
    tb::ui::HostPanel* host = hostPanel();
    host->setGpuName(QStringLiteral("NVIDIA H100 80GB HBM3"));
    host->setDriverText(QStringLiteral("570.124.06"));
    pointAt(registryHost());
    refreshAndWait();
    selectTag(QStringLiteral("30.03-serverless"));
    QTest::mouseClick(checkButton(panel_), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!panel_->isBusy(), kCallTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!harness_->page->isBusy(), kCallTimeoutMs);
    const QImage image = harness_->page->grab().toImage();
    QCOMPARE(image.size(), harness_->page->size());
    const QString file = qEnvironmentVariable("TB_IMAGE_PAGE_SCREENSHOT");
    if (!file.isEmpty()) QVERIFY(image.save(file));
  }
};

TB_UI_TEST_MAIN(RegistryPanelTest)
#include "registry_panel_test.moc"
