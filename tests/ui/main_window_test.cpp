// The main window: only built pages in the sidebar, extra catalogs loaded all
// or nothing (with the loader's message on screen), and choices that survive
// a restart without ever touching the real user's settings file.
#include <QComboBox>
#include <QListWidget>
#include <QApplication>
#include <QAction>
#include <QDropEvent>
#include <QDragEnterEvent>
#include <QUrl>
#include <QMimeData>
#include <QMenu>
#include <QDir>
#include <QLineEdit>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "tb/catalog/catalog_loader.hpp"
#include "ui/ablation/ablation_page.h"
#include "ui/ablation/ablation_source_model.h"
#include "ui/application_identity.h"
#include "ui/catalog_session.h"
#include "ui/image/host_panel.h"
#include "ui/image/image_page.h"
#include "ui/main_window.h"
#include "ui/open_files.h"
#include "ui/recent_files.h"
#include "ui/theme.h"
#include "plotting/line_chart.h"
#include "plotting/qcustomplot_include.h"
#include "ui/memory/memory_inputs_form.h"
#include "ui/memory/memory_page.h"
#include "ui/memory/memory_page_inputs.h"
#include "ui/optimizations/optimizations_page.h"
#include "ui/optimizations/validation_panel.h"
#include "ui/runs/run_form.h"
#include "ui/runs/runs_page.h"
#include "ui/studio_pages.h"
#include "ui/studio_settings.h"
#include "ui_test_support.h"

using tb::ui::MainWindow;
using tb::ui::test::child;

class MainWindowTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;

  static std::unique_ptr<MainWindow> makeWindow(
      tb::ui::SettingsAccess access = tb::ui::SettingsAccess::ReadWrite) {
    tb::ui::MainWindowOptions options;
    options.settingsAccess = access;
    return std::make_unique<MainWindow>(tb::catalog::builtinCatalog(), options);
  }

  static QStringList tags(const tb::catalog::Catalog& catalog) {
    QStringList list;
    for (const auto& release : catalog.releases) list.append(QString::fromStdString(release.tag));
    return list;
  }

 private Q_SLOTS:
  void init() { tb::ui::test::clearStudioSettings(); }
  void cleanup() { tb::ui::applyThemeChoice(tb::ui::ThemeChoice::System); }

  void settingsLiveInTheTestSandbox() {
    const QString file = tb::ui::StudioSettings::fileName();
    QVERIFY2(file.startsWith(sandbox_.home()), qPrintable(file));
    QVERIFY2(file.contains(QStringLiteral(".qttest")), qPrintable(file));
    QVERIFY(file.endsWith(QStringLiteral("TrainBench/TrainBench Studio.conf")));
  }

  void sidebarListsEveryPageInWorkflowOrder() {
    auto window = makeWindow();
    QCOMPARE(window->sidebarPageIds(), tb::ui::studioPageIds());
    const QStringList built = {QStringLiteral("image"),    QStringLiteral("optimizations"),
                               QStringLiteral("memory"),   QStringLiteral("runs"),
                               QStringLiteral("ablation"), QStringLiteral("reports")};
    QCOMPARE(window->sidebarPageIds(), built);
    QCOMPARE(window->currentPageId(), QStringLiteral("image"));
    QVERIFY(window->showPage(QStringLiteral("ablation")));
    QCOMPARE(window->currentPageId(), QStringLiteral("ablation"));
    QVERIFY(!window->showPage(QStringLiteral("no-such-page")));
    QCOMPARE(window->currentPageId(), QStringLiteral("ablation"));
  }

  void memoryRecommendationReachesRunsAndOptimizations() {
    auto window = makeWindow();
    QTRY_VERIFY(!window->isBusy());
    auto* memory = child<tb::ui::MemoryPage>(window.get(), "memoryPage");
    auto* runForm = child<tb::ui::RunForm>(window.get(), "runForm");
    auto* optimizations = child<tb::ui::OptimizationsPage>(window.get(), "optimizationsPage");
    QCOMPARE(runForm->runtime(), QStringLiteral("tuned"));
    Q_EMIT memory->recomputeRecommended(QStringLiteral("layers:5"), QStringLiteral("stock"));
    QCOMPARE(runForm->recomputePolicy(), QStringLiteral("layers:5"));
    // The plan was made for the stock runtime, so the run form takes it too.
    QCOMPARE(runForm->runtime(), QStringLiteral("stock"));
    QVERIFY(optimizations->currentConfig().checkpointOptimization);
    QVERIFY(window->statusBar()->currentMessage().contains(QStringLiteral("layers:5")));

    // A cluster profile's plan names no engine runtime and leaves it alone.
    Q_EMIT memory->recomputeRecommended(QStringLiteral("none"), QString());
    QCOMPARE(runForm->recomputePolicy(), QStringLiteral("none"));
    QCOMPARE(runForm->runtime(), QStringLiteral("stock"));
    QVERIFY(!optimizations->currentConfig().checkpointOptimization);

    // torchtitan's op is for its jobs: the image switches take it, the
    // engine's form keeps what it had, and the status line says why.
    Q_EMIT memory->recomputeRecommended(QStringLiteral("op"), QString());
    QCOMPARE(runForm->recomputePolicy(), QStringLiteral("none"));
    QVERIFY(optimizations->currentConfig().checkpointOptimization);
    QVERIFY2(window->statusBar()->currentMessage().contains(QStringLiteral("does not run it")),
             qPrintable(window->statusBar()->currentMessage()));
  }

  void defaultSizeIsUsedWhenNothingIsSaved() {
    auto window = makeWindow();
    QCOMPARE(window->size(), MainWindow::kDefaultSize);
  }

  void windowFitsASmallLaptopScreen() {
    auto window = makeWindow();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    const QSize minimum = window->minimumSizeHint();
    QVERIFY2(minimum.width() <= 1280 && minimum.height() <= 800,
             qPrintable(
                 QStringLiteral("minimum size %1x%2").arg(minimum.width()).arg(minimum.height())));
  }

  void memoryPageWithLongBreakdownTermsFitsTheDefaultWindow() {
    // small on a 0.5 GiB card, as a user left it last time: the breakdown
    // names "Backward workspace" and "Framework and allocator", and a legend
    // of three such entries a row made the page scroll sideways. The legend
    // wraps onto more rows instead.
    {
      QSettings stored(tb::ui::organizationName(), tb::ui::applicationName());
      const std::initializer_list<std::pair<const char*, QVariant>> job{
          {"preset", QStringLiteral("small")},
          {"seq", 8192},
          {"batch", 1},
          {"dp", 1},
          {"zero", 0},
          {"flashAttention", false},
          {"dtype", QStringLiteral("fp32")},
          {"profile", QStringLiteral("engine")},
          {"card", tb::ui::customCardName()},
          {"customGiB", 0.5}};
      for (const auto& [name, value] : job) {
        stored.setValue(QStringLiteral("memory/") + QString::fromLatin1(name), value);
      }
    }
    auto window = makeWindow();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    QVERIFY(window->showPage(QStringLiteral("memory")));
    auto* page = child<tb::ui::MemoryPage>(window.get(), "memoryPage");
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy(), 20000);
    QCOMPARE(child<tb::ui::MemoryInputsForm>(page, "memoryInputsForm")->inputs().preset,
             QStringLiteral("small"));
    auto* scroll = window->findChild<QScrollArea*>(QStringLiteral("memoryPageScroll"));
    QVERIFY(scroll != nullptr);
    QTest::qWait(100);  // the rebuilt charts' layout settles
    const int overflow = scroll->widget()->minimumSizeHint().width() - scroll->viewport()->width();
    QVERIFY2(overflow <= 0,
             qPrintable(QStringLiteral("the memory page needs %1 px more width").arg(overflow)));
  }

  void malformedCatalogLeavesTheCatalogUnchanged() {
    auto window = makeWindow();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    const QStringList before = tags(window->session().catalog());
    const std::string versionBefore = window->session().catalog().catalogVersion;
    QAbstractItemModel* releases = child<QTableView>(window.get(), "releaseView")->model();
    const int rowsBefore = releases->rowCount();
    const QString file = tb::ui::test::testDataFile(QStringLiteral("malformed-release.json"));

    const tb::Status status = window->loadCatalogInteractively(file);
    QVERIFY(!status.ok());
    QCOMPARE(tags(window->session().catalog()), before);
    QCOMPARE(window->session().catalog().catalogVersion, versionBefore);
    QCOMPARE(releases->rowCount(), rowsBefore);
    QVERIFY(!before.contains(QStringLiteral("26.02")));  // the valid half is not kept either

    auto* box = window->findChild<QMessageBox*>(QStringLiteral("catalogErrorBox"));
    QVERIFY(box);
    QTRY_VERIFY(box->isVisible());
    const QString message = box->informativeText();
    QVERIFY2(message.contains(QStringLiteral("malformed-release.json")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("$.releases[1].required_driver")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("integer")), qPrintable(message));
    box->close();
  }

  void missingCatalogFileIsRefusedByName() {
    auto window = makeWindow();
    const int before = static_cast<int>(window->session().catalog().releases.size());
    const tb::Status status =
        window->loadCatalogInteractively(QStringLiteral("/nonexistent/x.json"));
    QVERIFY(!status.ok());
    QVERIFY(QString::fromStdString(status.error().message).contains(QStringLiteral("x.json")));
    QCOMPARE(static_cast<int>(window->session().catalog().releases.size()), before);
  }

  void extraCatalogAddsAReleaseRow() {
    auto window = makeWindow();
    QAbstractItemModel* rows = child<QTableView>(window.get(), "releaseView")->model();
    const int before = rows->rowCount();
    const QString file = tb::ui::test::testDataFile(QStringLiteral("extra-release.json"));
    QVERIFY(window->loadCatalogInteractively(file).ok());
    QCOMPARE(rows->rowCount(), before + 1);
    QVERIFY(tags(window->session().catalog()).contains(QStringLiteral("26.01")));
    QVERIFY(window->findChild<QMessageBox*>(QStringLiteral("catalogErrorBox")) == nullptr);
    QVERIFY(window->statusBar()->currentMessage().contains(QStringLiteral("extra-release.json")));
  }

  void lastChoicesSurviveANewWindow() {
    {
      auto window = makeWindow();
      window->show();
      QVERIFY(QTest::qWaitForWindowExposed(window.get()));
      auto* host = child<tb::ui::HostPanel>(window.get(), "hostPanel");
      QTRY_VERIFY(!window->isBusy());
      window->session().selectRelease(QStringLiteral("25.08"));
      auto* driver = child<QLineEdit>(host, "driverEdit");
      driver->clear();
      QTest::keyClicks(driver, QStringLiteral("535.104.05"));
      host->setGpuName(QStringLiteral("NVIDIA H200"));
      child<QSpinBox>(host, "gpuCountSpin")->setValue(8);
      auto* arch = child<QComboBox>(host, "archCombo");
      arch->setCurrentIndex(arch->findData(QStringLiteral("arm64")));
      window->resize(1500, 820);
      window->close();
    }
    auto window = makeWindow();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    QTRY_VERIFY(!window->isBusy());  // detection must not overwrite typed values
    auto* host = child<tb::ui::HostPanel>(window.get(), "hostPanel");
    QCOMPARE(window->session().selectedReleaseTag(), QStringLiteral("25.08"));
    QCOMPARE(child<QLineEdit>(host, "driverEdit")->text(), QStringLiteral("535.104.05"));
    QCOMPARE(host->input().gpuName, QStringLiteral("NVIDIA H200"));
    QCOMPARE(child<QSpinBox>(host, "gpuCountSpin")->value(), 8);
    TB_COMPARE_ENUM(host->input().arch, tb::catalog::CpuArch::Arm64);
    QCOMPARE(window->size(), QSize(1500, 820));
    QCOMPARE(window->currentPageId(), QStringLiteral("image"));
  }

  void splitterSizesSurviveARestart() {
    QList<int> moved;
    {
      auto window = makeWindow();
      window->resize(1500, 820);
      window->show();
      QVERIFY(QTest::qWaitForWindowExposed(window.get()));
      auto* releases = child<QSplitter>(window.get(), "imageReleasesSplitter");
      QList<int> sizes = releases->sizes();
      QCOMPARE(sizes.size(), 3);
      // The release list made wider by 120 px, taken from the details.
      sizes[0] += 120;
      sizes[1] -= 120;
      releases->setSizes(sizes);
      moved = releases->sizes();
      // A splitter of a page not shown yet is kept as well.
      QVERIFY(window->showPage(QStringLiteral("ablation")));
      auto* columns = child<QSplitter>(window.get(), "ablationColumnsSplitter");
      QList<int> ablation = columns->sizes();
      ablation[0] -= 40;
      ablation[1] += 40;
      columns->setSizes(ablation);
      QVERIFY(window->showPage(QStringLiteral("image")));
      window->close();
    }
    auto window = makeWindow();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    QCOMPARE(child<QSplitter>(window.get(), "imageReleasesSplitter")->sizes(), moved);
    // Every splitter has a name of its own, so each is kept under it.
    QStringList names;
    for (const QSplitter* splitter : window->findChildren<QSplitter*>()) {
      QVERIFY2(!splitter->objectName().isEmpty(), "a splitter without a name is not remembered");
      QVERIFY2(!names.contains(splitter->objectName()), qPrintable(splitter->objectName()));
      names << splitter->objectName();
    }
    QVERIFY(
        tb::ui::keys::kWindowSplitters.get().contains(QStringLiteral("ablationColumnsSplitter")));
  }

  void readOnlyWindowsWriteNothing() {
    {
      auto window = makeWindow(tb::ui::SettingsAccess::ReadOnly);
      window->session().selectRelease(QStringLiteral("25.06"));
      child<QLineEdit>(window.get(), "driverEdit")->setText(QStringLiteral("580.65.06"));
      window->close();
    }
    const tb::ui::ImagePageChoices choices = tb::ui::StudioSettings().imagePageChoices();
    QVERIFY(choices.driver.isEmpty());
    QVERIFY(choices.releaseTag.isEmpty());
  }

  void filesOpenOnThePagesThatReadThem() {
    auto window = makeWindow();
    const QString data = QStringLiteral(TB_REPO_TEST_DATA);
    QSignalSpy settled(window.get(), &MainWindow::settled);
    window->openFiles({data + QStringLiteral("/config/bad_ds_stage.json"),
                       data + QStringLiteral("/bench/results-fixture.json"),
                       tb::ui::test::testDataFile(QStringLiteral("extra-release.json")),
                       data + QStringLiteral("/logs/megatron/core_v0.16_first_iteration.log")});
    // The catalog as File > Load Catalog loads it; the DeepSpeed config in
    // the validator; results and the log on the Ablation page, shown last.
    QVERIFY(tags(window->session().catalog()).contains(QStringLiteral("26.01")));
    auto* validation = child<tb::ui::ValidationPanel>(window.get(), "validationPanel");
    QCOMPARE(validation->files(), QStringList{data + QStringLiteral("/config/bad_ds_stage.json")});
    QCOMPARE(window->currentPageId(), QStringLiteral("ablation"));
    auto* ablation = child<tb::ui::AblationPage>(window.get(), "ablationPage");
    QTRY_COMPARE_WITH_TIMEOUT(ablation->sourceModel()->rowCount(), 2, 20'000);
    QTRY_VERIFY_WITH_TIMEOUT(!window->isBusy(), 20'000);

    // An unknown file is said on the Ablation page (it could be a log), and
    // the window goes on.
    QTemporaryDir dir;
    const QString unknown = dir.filePath(QStringLiteral("notes.bin"));
    QFile file(unknown);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray("\x00\x01binary", 8));
    file.close();
    window->openFiles({unknown});
    QTRY_VERIFY_WITH_TIMEOUT(
        child<QLabel>(window.get(), "ablationMessage")->isVisibleTo(window.get()), 20'000);
    QVERIFY2(child<QLabel>(window.get(), "ablationMessage")
                 ->text()
                 .contains(QStringLiteral("notes.bin")),
             qPrintable(child<QLabel>(window.get(), "ablationMessage")->text()));
    QCOMPARE(ablation->sourceModel()->rowCount(), 2);
  }

  void everyKindOfFileHasItsPage() {
    // What `trainbench-studio FILE…` and the desktop's "Open with" decide,
    // one file of each kind the Studio reads.
    using tb::ui::OpenTarget;
    const QString data = QStringLiteral(TB_REPO_TEST_DATA);
    const std::initializer_list<std::pair<const char*, OpenTarget>> cases{
        {"/bench/results-fixture.json", OpenTarget::Ablation},
        {"/bench/cluster-good.csv", OpenTarget::Ablation},
        {"/bench/cluster-good.json", OpenTarget::Ablation},
        {"/logs/megatron/core_v0.16_first_iteration.log", OpenTarget::Ablation},
        {"/logs/hf-trainer/trainer_state_old_keys.json", OpenTarget::Ablation},
        {"/logs/mlperf/gpt3_result.txt", OpenTarget::Ablation},
        {"/config/bad_ds_stage.json", OpenTarget::Validator},
        {"/config/good.env", OpenTarget::Validator},
        {"/config/bad_arch.yaml", OpenTarget::Validator},
        {"/config/good.Dockerfile", OpenTarget::Validator},
        {"/config/compile_off.py", OpenTarget::Validator},
    };
    for (const auto& [relative, target] : cases) {
      QVERIFY2(QFileInfo::exists(data + QLatin1String(relative)), relative);
      QVERIFY2(tb::ui::openTargetFor(data + QLatin1String(relative)) == target, relative);
    }
    QVERIFY(tb::ui::openTargetFor(tb::ui::test::testDataFile(
                QStringLiteral("extra-release.json"))) == OpenTarget::Catalog);
  }

  void recentFilesAreDeduplicatedCappedAndDropMissingOnes() {
    QTemporaryDir dir;
    QStringList files;
    for (int index = 0; index < tb::ui::kRecentFilesCap + 3; ++index) {
      files.append(dir.filePath(QStringLiteral("run%1.json").arg(index)));
      QFile file(files.last());
      QVERIFY(file.open(QIODevice::WriteOnly));
    }
    // The last opened comes first; a file opened again moves up, not twice.
    QStringList recent = tb::ui::withOpened({}, {files[0], files[1]});
    QCOMPARE(recent, (QStringList{files[1], files[0]}));
    recent = tb::ui::withOpened(recent, {files[0]});
    QCOMPARE(recent, (QStringList{files[0], files[1]}));
    // A relative or unclean spelling is the same file.
    recent = tb::ui::withOpened(recent, {dir.path() + QStringLiteral("/./run1.json")});
    QCOMPARE(recent, (QStringList{files[1], files[0]}));
    // Capped, newest kept.
    recent = tb::ui::withOpened(recent, files);
    QCOMPARE(recent.size(), tb::ui::kRecentFilesCap);
    QCOMPARE(recent.first(), files.last());
    // A deleted file leaves the list.
    QVERIFY(QFile::remove(recent.at(1)));
    const QStringList existing = tb::ui::existingRecent(recent);
    QCOMPARE(existing.size(), tb::ui::kRecentFilesCap - 1);
    QVERIFY(!existing.contains(recent.at(1)));
  }

  void openedFilesJoinOpenRecentAcrossWindows() {
    const QString results =
        QStringLiteral(TB_REPO_TEST_DATA) + QStringLiteral("/bench/results-fixture.json");
    {
      auto window = makeWindow();
      window->openFiles({results});
      QTRY_VERIFY_WITH_TIMEOUT(!window->isBusy(), 20'000);
    }
    auto window = makeWindow();
    auto* menu = child<QMenu>(window.get(), "recentMenu");
    Q_EMIT menu->aboutToShow();
    QStringList tips;
    for (const QAction* action : menu->actions()) tips.append(action->statusTip());
    QVERIFY2(tips.contains(QFileInfo(results).absoluteFilePath()),
             qPrintable(tips.join(QLatin1Char(','))));
    // Picking it opens it again, on its page.
    window->showPage(QStringLiteral("image"));
    for (QAction* action : menu->actions()) {
      if (action->statusTip() == QFileInfo(results).absoluteFilePath()) action->trigger();
    }
    QCOMPARE(window->currentPageId(), QStringLiteral("ablation"));
  }

  void pagesHaveCtrlDigitShortcutsInSidebarOrder() {
    auto window = makeWindow();
    const QStringList ids = window->sidebarPageIds();
    for (int row = 0; row < ids.size(); ++row) {
      auto* action = window->findChild<QAction*>(ids.at(row) + QStringLiteral("PageAction"));
      QVERIFY2(action != nullptr, qPrintable(ids.at(row)));
      QCOMPARE(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+%1").arg(row + 1)));
      action->trigger();
      QCOMPARE(window->currentPageId(), ids.at(row));
    }
    QCOMPARE(child<QAction>(window.get(), "openAction")->shortcut(),
             QKeySequence(QKeySequence::Open));
    QCOMPARE(child<QAction>(window.get(), "documentationAction")->shortcut(),
             QKeySequence(QKeySequence::HelpContents));
  }

  void filesDroppedOnTheWindowOpenOnTheirPages() {
    auto window = makeWindow();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    window->showPage(QStringLiteral("image"));
    QMimeData data;
    data.setUrls({QUrl::fromLocalFile(QStringLiteral(TB_REPO_TEST_DATA) +
                                      QStringLiteral("/config/good.env"))});
    // Qt sends the enter event before the drop, and the drop only where the
    // enter was accepted.
    QDragEnterEvent enter(QPoint(5, 5), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window.get(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(5, 5), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window.get(), &drop);
    QCOMPARE(window->currentPageId(), QStringLiteral("optimizations"));
    auto* validation = child<tb::ui::ValidationPanel>(window.get(), "validationPanel");
    QCOMPARE(validation->files(),
             QStringList{QStringLiteral(TB_REPO_TEST_DATA) + QStringLiteral("/config/good.env")});
  }

  void darkThemePersistsAndReachesTheCharts() {
    {
      auto window = makeWindow();
      QVERIFY(!tb::ui::paletteIsDark(QApplication::palette()));
      QVERIFY(child<QAction>(window.get(), "themesystemAction")->isChecked());
      child<QAction>(window.get(), "themedarkAction")->trigger();
      QVERIFY(tb::ui::paletteIsDark(QApplication::palette()));
      // The charts restyle from the palette: the live loss chart's text is light.
      auto* loss = child<tb::plotting::LineChart>(window.get(), "lossChart");
      QTRY_VERIFY(loss->plot().xAxis->labelColor().lightnessF() > 0.6);
      // So does the sidebar, whose shade is its own.
      QTRY_VERIFY(child<QListWidget>(window.get(), "pageSidebar")
                      ->palette()
                      .color(QPalette::Base)
                      .lightness() < 128);
    }
    // The next window starts dark, with the choice ticked; following the
    // system again puts the desktop's palette back.
    tb::ui::applyThemeChoice(tb::ui::ThemeChoice::System);
    auto window = makeWindow();
    QVERIFY(tb::ui::paletteIsDark(QApplication::palette()));
    QVERIFY(child<QAction>(window.get(), "themedarkAction")->isChecked());
    child<QAction>(window.get(), "themesystemAction")->trigger();
    QVERIFY(!tb::ui::paletteIsDark(QApplication::palette()));
    QCOMPARE(tb::ui::keys::kTheme.get(), QStringLiteral("system"));
  }

  void aboutBoxAddsTheEngineLibrariesTrainbenchReports() {
    qputenv("TRAINBENCH_BINARY", QByteArrayLiteral(TB_TRAINBENCH_BINARY));
    auto window = makeWindow();
    child<QAction>(window.get(), "aboutAction")->trigger();
    auto* box = child<QMessageBox>(window.get(), "aboutBox");
    QVERIFY(box->isVisible());  // at once, not after the child answers
    QTRY_VERIFY_WITH_TIMEOUT(box->text().contains(QStringLiteral("LibTorch")), 15'000);
    QVERIFY2(box->text().contains(QStringLiteral("OpenBLAS")), qPrintable(box->text()));
    box->close();
    // A trainbench that cannot start is said in the box.
    qputenv("TRAINBENCH_BINARY", QByteArrayLiteral("/nonexistent/trainbench"));
    child<QAction>(window.get(), "aboutAction")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(
        window->findChild<QMessageBox*>(QStringLiteral("aboutBox")) != nullptr &&
            window->findChild<QMessageBox*>(QStringLiteral("aboutBox"))
                ->text()
                .contains(QStringLiteral("could not be started")),
        15'000);
    qunsetenv("TRAINBENCH_BINARY");
  }

  void aboutBoxDoesNotWaitForATrainbenchThatHangs() {
    QTemporaryDir dir;
    const QString hanging = QDir(dir.path()).filePath(QStringLiteral("trainbench"));
    QFile script(hanging);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("#!/bin/sh\nexec sleep 120\n");
    script.close();
    QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    qputenv("TRAINBENCH_BINARY", hanging.toLocal8Bit());
    auto window = makeWindow();
    child<QAction>(window.get(), "aboutAction")->trigger();
    auto* box = child<QMessageBox>(window.get(), "aboutBox");
    QTRY_VERIFY_WITH_TIMEOUT(box->text().contains(QStringLiteral("did not answer within 10 s")),
                             20'000);
    qunsetenv("TRAINBENCH_BINARY");
  }

  void aboutNamesVersionLicenceAndCredits() {
    const QString text = tb::ui::aboutText(QStringLiteral("2026.11.1"));
    QVERIFY(text.contains(tb::ui::applicationVersion()));
    QVERIFY(text.contains(QStringLiteral("GPL-3.0-or-later")));
    QVERIFY(text.contains(QStringLiteral("QCustomPlot")));
    QVERIFY(text.contains(QStringLiteral("2026.11.1")));
    QCOMPARE(tb::ui::applicationVersion(), QStringLiteral(TB_PROJECT_VERSION));
  }
};

TB_UI_TEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
