// Every page as a person meets it: at a laptop's 1280x800, the default size
// and full HD, empty (a first start) and with data (a run in the store,
// results, a cluster file and a training log on the Ablation page, configs
// in the validator). No page may scroll sideways and no form may cut a
// field. ctest runs it offscreen, and in a real X server (Xvfb, Qt's xcb
// platform) at scale 1 and QT_SCALE_FACTOR=2 through xvfb_layout_test.sh.
// With TB_LAYOUT_SCREENSHOT_DIR set, every page is saved there as
// <size>-<state>-<page>.png (the README's pictures are taken from these).
#include <QAbstractButton>
#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QProcess>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "tb/catalog/catalog_loader.hpp"
#include "ui/application_identity.h"
#include "ui/main_window.h"
#include "ui/theme.h"
#include "ui_test_support.h"

using tb::ui::MainWindow;

class WindowLayoutTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;
  QTemporaryDir emptyStore_;
  QTemporaryDir fullStore_;

  /// Page `id` of `window` needs no sideways scrolling and cuts no field.
  static void checkPage(MainWindow& window, const QString& id) {
    QVERIFY(window.showPage(id));
    auto* scroll = window.findChild<QScrollArea*>(id + QStringLiteral("PageScroll"));
    QVERIFY2(scroll != nullptr, qPrintable(id));
    QTRY_VERIFY(scroll->widget()->isVisible());
    // Pages scroll inside their slot, so a small screen still works; none
    // may need to scroll sideways: a table cut off at the right is a page
    // nobody can read whole.
    const int overflow = scroll->widget()->minimumSizeHint().width() - scroll->viewport()->width();
    QVERIFY2(
        overflow <= 0,
        qPrintable(QStringLiteral("the %1 page needs %2 px more width").arg(id).arg(overflow)));
    QTest::qWait(100);  // the page's splitters lay out once it is shown
    // Nor may a form inside it: the Runs form's column once cut its combo
    // boxes and its Browse button ("Bro") behind a sideways scroll bar.
    // (Forms: scroll areas with fields in them.)
    for (auto* inner : scroll->widget()->findChildren<QScrollArea*>()) {
      if (!inner->isVisible()) continue;
      const int room = inner->viewport()->width();
      bool form = false;
      for (QWidget* field : inner->widget()->findChildren<QWidget*>()) {
        const bool input = qobject_cast<QComboBox*>(field) || qobject_cast<QSpinBox*>(field) ||
                           qobject_cast<QLineEdit*>(field) || qobject_cast<QAbstractButton*>(field);
        if (!input || !field->isVisible()) continue;
        form = true;
        const int right = field->mapTo(inner->viewport(), QPoint(field->width(), 0)).x();
        QVERIFY2(right <= room,
                 qPrintable(QStringLiteral("%1: %2 ends at %3, past the %4 px it has "
                                           "(the form: %5 px, at least %6)")
                                .arg(id, field->objectName())
                                .arg(right)
                                .arg(room)
                                .arg(inner->widget()->width())
                                .arg(inner->widget()->minimumSizeHint().width())));
      }
      QVERIFY2(!form || !inner->horizontalScrollBar()->isVisible(),
               qPrintable(id + QStringLiteral(": a form scrolls sideways")));
    }
  }

  static void saveScreenshot(MainWindow& window, const QString& name) {
    const QString dir = qEnvironmentVariable("TB_LAYOUT_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QVERIFY(QDir().mkpath(dir));
    const QString path = QDir(dir).filePath(name + QStringLiteral(".png"));
    QVERIFY2(window.grab().save(path), qPrintable(path));
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(emptyStore_.isValid() && fullStore_.isValid());
    // The full store holds one real run of the engine, as a user's does
    // after their first `trainbench run`.
    QProcess run;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_DATA_HOME"), fullStore_.path());
    run.setProcessEnvironment(environment);
    run.start(QStringLiteral(TB_TRAINBENCH_BINARY),
              {QStringLiteral("run"), QStringLiteral("--model"), QStringLiteral("tiny"),
               QStringLiteral("--steps"), QStringLiteral("5")});
    QVERIFY(run.waitForFinished(120'000));
    QVERIFY2(run.exitStatus() == QProcess::NormalExit && run.exitCode() == 0,
             run.readAllStandardError().constData());
  }

  void init() { tb::ui::test::clearStudioSettings(); }
  void cleanup() { tb::ui::applyThemeChoice(tb::ui::ThemeChoice::System); }

  void everyPageFitsEmptyAndWithData_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("withData");
    QTest::addColumn<bool>("dark");
    for (const auto& [name, size] :
         {std::pair{"1280x800", QSize(1280, 800)}, std::pair{"default", MainWindow::kDefaultSize},
          std::pair{"1920x1080", QSize(1920, 1080)}}) {
      QTest::newRow(qPrintable(QStringLiteral("%1-empty").arg(QLatin1String(name))))
          << size << false << false;
      QTest::newRow(qPrintable(QStringLiteral("%1-data").arg(QLatin1String(name))))
          << size << true << false;
    }
    // Every page in the dark theme too, as View > Theme sets it.
    QTest::newRow("default-empty-dark") << MainWindow::kDefaultSize << false << true;
    QTest::newRow("default-data-dark") << MainWindow::kDefaultSize << true << true;
  }

  void everyPageFitsEmptyAndWithData() {
    QFETCH(QSize, size);
    QFETCH(bool, withData);
    QFETCH(bool, dark);
    if (dark) tb::ui::applyThemeChoice(tb::ui::ThemeChoice::Dark);
    const QString data = QStringLiteral(TB_REPO_TEST_DATA);
    if (withData) {
      // A torchtitan log the page showed last time, with the GPUs given in
      // its row (the file does not say), as the page restores it: beside the
      // Megatron log opened below, two formats next to the engine's runs.
      QSettings stored(tb::ui::organizationName(), tb::ui::applicationName());
      stored.setValue(
          tb::ui::keys::kAblationLogs.key(),
          QStringList{QStringLiteral("AC2\t8\t") + data +
                      QStringLiteral("/logs/torchtitan/torchtitan_2026-01_wandb_grad_norm.log")});
    }
    qputenv("XDG_DATA_HOME", (withData ? fullStore_ : emptyStore_).path().toLocal8Bit());
    tb::ui::MainWindowOptions options;
    auto window = std::make_unique<MainWindow>(tb::catalog::builtinCatalog(), options);
    window->resize(size);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    if (withData) {
      window->openFiles({data + QStringLiteral("/bench/results-fixture.json"),
                         data + QStringLiteral("/bench/cluster-good.json"),
                         data + QStringLiteral("/logs/megatron/core_v0.16_first_iteration.log"),
                         data + QStringLiteral("/config/bad_ds_stage.json"),
                         data + QStringLiteral("/config/bad_ifname.env")});
    }
    QTRY_VERIFY_WITH_TIMEOUT(!window->isBusy(), 30'000);
    const QString row = QString::fromLatin1(QTest::currentDataTag());
    for (const QString& id : window->sidebarPageIds()) {
      checkPage(*window, id);
      if (QTest::currentTestFailed()) return;
      saveScreenshot(*window, row + QLatin1Char('-') + id);
    }
  }
};

QTEST_MAIN(WindowLayoutTest)
#include "window_layout_test.moc"
