// --screenshot, in process and through the real binary: a PNG of the
// expected size with real content, written atomically, only after host
// detection finished; and the command line's refusals with exit code 2.
#include <QDir>
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>

#include "tb/catalog/catalog_loader.hpp"
#include "ui/image/host_panel.h"
#include "ui/image/image_page.h"
#include "ui/main_window.h"
#include "ui/screenshot.h"
#include "ui_test_support.h"

using tb::ui::MainWindow;

namespace {

struct StudioRun {
  int exitCode = -1;
  QString standardError;
  QString standardOutput;
};

enum class Screen { Offscreen, None };

// Runs trainbench-studio with its own HOME and XDG_CONFIG_HOME under `home`,
// on the offscreen platform or with no display at all (no platform named,
// no X11 or Wayland display to find).
StudioRun runStudio(const QStringList& arguments, const QString& home,
                    Screen display = Screen::Offscreen) {
  QProcess process;
  QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
  environment.insert(QStringLiteral("HOME"), home);
  environment.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/config"));
  if (display == Screen::Offscreen) {
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  } else {
    for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) {
      environment.remove(QString::fromLatin1(name));
    }
  }
  process.setProcessEnvironment(environment);
  process.start(QStringLiteral(TB_STUDIO_BINARY), arguments);
  if (!process.waitForFinished(60000)) {
    process.kill();
    process.waitForFinished();
    return {};
  }
  return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
          QString::fromLocal8Bit(process.readAllStandardError()),
          QString::fromLocal8Bit(process.readAllStandardOutput())};
}

int distinctColours(const QImage& image) {
  QSet<QRgb> colours;
  for (int y = 0; y < image.height(); y += 7) {
    for (int x = 0; x < image.width(); x += 7) colours.insert(image.pixel(x, y));
  }
  return static_cast<int>(colours.size());
}

}  // namespace

class ScreenshotTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;
  QTemporaryDir out_;

  // Takes a screenshot in process and waits for the callback.
  std::optional<tb::Status> shoot(MainWindow& window, const QString& path) {
    std::optional<tb::Status> result;
    tb::ui::saveScreenshotWhenSettled(window, path,
                                      [&result](const tb::Status& status) { result = status; });
    if (!QTest::qWaitFor([&result] { return result.has_value(); }, 60000)) return std::nullopt;
    return result;
  }

  static std::unique_ptr<MainWindow> makeWindow() {
    tb::ui::MainWindowOptions options;
    options.initialPage = QStringLiteral("image");
    options.settingsAccess = tb::ui::SettingsAccess::ReadOnly;
    return std::make_unique<MainWindow>(tb::catalog::builtinCatalog(), options);
  }

 private Q_SLOTS:
  void init() { tb::ui::test::clearStudioSettings(); }

  void screenshotIsAPngOfTheDefaultWindowSize() {
    auto window = makeWindow();
    const QString path = out_.filePath(QStringLiteral("in-process.png"));
    const auto status = shoot(*window, path);
    QVERIFY(status.has_value());
    QVERIFY2(status->ok(), status->ok() ? "" : status->error().message.c_str());
    const QImage image(path);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), MainWindow::kDefaultSize);
    QVERIFY2(distinctColours(image) > 20, "the screenshot looks blank");
  }

  void screenshotWaitsForHostDetection() {
    auto window = makeWindow();
    const auto status = shoot(*window, out_.filePath(QStringLiteral("settled.png")));
    QVERIFY(status.has_value() && status->ok());
    QVERIFY(!window->isBusy());
    const QString summary =
        tb::ui::test::child<tb::ui::HostPanel>(window.get(), "hostPanel")->detectionSummary();
    QVERIFY2(summary.startsWith(QStringLiteral("Detected")), qPrintable(summary));
  }

  void screenshotLeavesNoTemporaryFiles() {
    QTemporaryDir dir;
    auto window = makeWindow();
    const auto status = shoot(*window, dir.filePath(QStringLiteral("only.png")));
    QVERIFY(status.has_value() && status->ok());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("only.png")});
  }

  void unwritablePathIsAnErrorNamingThePath() {
    auto window = makeWindow();
    const QString path = QStringLiteral("/nonexistent-directory/shot.png");
    const auto status = shoot(*window, path);
    QVERIFY(status.has_value());
    QVERIFY(!status->ok());
    QVERIFY2(QString::fromStdString(status->error().message).contains(path),
             status->error().message.c_str());
  }

  void studioBinaryWritesTheScreenshot() {
    QTemporaryDir home;
    const QString path = out_.filePath(QStringLiteral("binary.png"));
    const StudioRun run = runStudio(
        {QStringLiteral("--page"), QStringLiteral("image"), QStringLiteral("--screenshot"), path},
        home.path());
    QVERIFY2(run.exitCode == 0, qPrintable(run.standardError));
    const QImage image(path);
    QCOMPARE(image.size(), MainWindow::kDefaultSize);
    QVERIFY(distinctColours(image) > 20);
    // A screenshot reads settings but never writes them.
    QVERIFY(
        !QFile::exists(home.filePath(QStringLiteral("config/TrainBench/TrainBench Studio.conf"))));
  }

  void helpAndVersionNeedNoDisplay() {
    QTemporaryDir home;
    const StudioRun help = runStudio({QStringLiteral("--help")}, home.path(), Screen::None);
    QVERIFY2(help.exitCode == 0, qPrintable(help.standardError));
    QVERIFY2(help.standardOutput.contains(QLatin1String("--screenshot <file>")),
             qPrintable(help.standardOutput));
    QVERIFY(help.standardOutput.contains(QLatin1String("cluster plan folders")));
    const StudioRun version = runStudio({QStringLiteral("--version")}, home.path(), Screen::None);
    QVERIFY2(version.exitCode == 0, qPrintable(version.standardError));
    QVERIFY2(version.standardOutput.contains(QStringLiteral(TB_PROJECT_VERSION)),
             qPrintable(version.standardOutput));
  }

  void studioBinaryRefusesAnUnknownPage() {
    QTemporaryDir home;
    const StudioRun run =
        runStudio({QStringLiteral("--page"), QStringLiteral("bogus")}, home.path());
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.standardError.contains(QStringLiteral("'bogus'")), qPrintable(run.standardError));
  }

  void studioBinaryRefusesAMalformedCatalog() {
    QTemporaryDir home;
    const StudioRun run =
        runStudio({QStringLiteral("--catalog"),
                   tb::ui::test::testDataFile(QStringLiteral("malformed-release.json")),
                   QStringLiteral("--screenshot"), out_.filePath(QStringLiteral("never.png"))},
                  home.path());
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.standardError.contains(QStringLiteral("$.releases[1].required_driver")),
             qPrintable(run.standardError));
    QVERIFY(!QFile::exists(out_.filePath(QStringLiteral("never.png"))));
  }

  void studioBinaryLoadsAnExtraCatalog() {
    QTemporaryDir home;
    const QString path = out_.filePath(QStringLiteral("extra.png"));
    const StudioRun run =
        runStudio({QStringLiteral("--catalog"),
                   tb::ui::test::testDataFile(QStringLiteral("extra-release.json")),
                   QStringLiteral("--screenshot"), path},
                  home.path());
    QVERIFY2(run.exitCode == 0, qPrintable(run.standardError));
    QVERIFY(QFile::exists(path));
  }
};

TB_UI_TEST_MAIN(ScreenshotTest)
#include "screenshot_test.moc"
