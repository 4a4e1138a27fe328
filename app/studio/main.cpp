// trainbench-studio: parses the command line and starts the main window.
// Everything else (pages, screenshots, catalog loading) lives in tb::ui so
// the tests drive the same code; exit codes follow the CLI contract
// (0 success, 1 runtime failure, 2 usage or bad input).
#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>

#include <cstdio>

#include "tb/catalog/catalog_loader.hpp"
#include "tb/common/stop_signals.hpp"
#include "ui/application_identity.h"
#include "ui/catalog_session.h"
#include "ui/main_window.h"
#include "ui/screenshot.h"
#include "ui/studio_pages.h"

namespace {

constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;

int failUsage(const QString& message) {
  QTextStream(stderr) << "trainbench-studio: " << message << Qt::endl;
  return kExitUsage;
}

/// The command line's options, for the parser of either application.
struct StudioCommandLine {
  QCommandLineParser parser;
  QCommandLineOption page{QStringLiteral("page"),
                          QCoreApplication::translate("main", "Open this page: %1.")
                              .arg(tb::ui::studioPageIds().join(QStringLiteral(", "))),
                          QStringLiteral("id")};
  QCommandLineOption screenshot{
      QStringLiteral("screenshot"),
      QCoreApplication::translate("main", "Render the window to a PNG file and exit."),
      QStringLiteral("file")};
  QCommandLineOption catalog{
      QStringLiteral("catalog"),
      QCoreApplication::translate("main", "Lay an extra catalog file over the built-in one."),
      QStringLiteral("file")};

  StudioCommandLine() {
    parser.setApplicationDescription(
        QCoreApplication::translate("main",
                                    "Compatibility, configuration, memory and ablation tooling for "
                                    "training-nv-pytorch images."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions({page, screenshot, catalog});
    parser.addPositionalArgument(
        QStringLiteral("files"),
        QCoreApplication::translate(
            "main",
            "Files and folders to open: results, cluster files, training logs and cluster "
            "plan folders on the Ablation page; DeepSpeed JSON, env files, Kubernetes "
            "manifests, Dockerfiles and TrainingArguments scripts in the validator; a "
            "catalog as File > Load Catalog."),
        QStringLiteral("[FILE...]"));
  }
};

/// Whether the command line asks only for help or the version, which need
/// no display: they are answered before the GUI (and its platform plugin,
/// which aborts without a display) starts.
bool asksForHelpOrVersion(int argc, char* argv[]) {
  for (int i = 1; i < argc; ++i) {
    const QLatin1String argument(argv[i]);
    if (argument == QLatin1String("--")) return false;
    for (const char* option : {"-h", "--help", "-?", "--help-all", "-v", "--version"}) {
      if (argument == QLatin1String(option)) return true;
    }
  }
  return false;
}

/// Prints the help or the version as QCommandLineParser does, and exits 0.
int answerWithoutDisplay(int argc, char* argv[]) {
  QCoreApplication app(argc, argv);
  QCoreApplication::setOrganizationName(tb::ui::organizationName());
  QCoreApplication::setApplicationName(tb::ui::applicationName());
  QCoreApplication::setApplicationVersion(tb::ui::applicationVersion());
  StudioCommandLine commandLine;
  commandLine.parser.process(app);  // exits on --help and --version
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  tb::reportFileSizeLimitAsWriteError();
  if (asksForHelpOrVersion(argc, argv)) return answerWithoutDisplay(argc, argv);
  QApplication app(argc, argv);
  tb::ui::applyApplicationIdentity();

  StudioCommandLine commandLine;
  QCommandLineParser& parser = commandLine.parser;
  const QCommandLineOption& pageOption = commandLine.page;
  const QCommandLineOption& screenshotOption = commandLine.screenshot;
  const QCommandLineOption& catalogOption = commandLine.catalog;
  parser.process(app);  // exits on unknown options

  const QString page = parser.value(pageOption);
  if (!page.isEmpty()) {
    if (!tb::ui::findStudioPage(page)) {
      return failUsage(QStringLiteral("unknown page '%1'; pages: %2")
                           .arg(page, tb::ui::studioPageIds().join(QStringLiteral(", "))));
    }
  }

  const bool screenshot = parser.isSet(screenshotOption);
  tb::ui::MainWindowOptions options;
  options.initialPage = page;
  // A screenshot restores the user's choices but must not rewrite them.
  options.settingsAccess =
      screenshot ? tb::ui::SettingsAccess::ReadOnly : tb::ui::SettingsAccess::ReadWrite;
  tb::ui::MainWindow window(tb::catalog::builtinCatalog(), options);

  for (const QString& file : parser.values(catalogOption)) {
    if (const tb::Status loaded = window.session().loadExtraCatalog(file); !loaded) {
      return failUsage(QString::fromStdString(loaded.error().message));
    }
  }

  // A second launch with files opens a window of its own (no single
  // instance): each window is a whole Studio over the same settings.
  window.openFiles(parser.positionalArguments());

  if (screenshot) {
    const QString file = parser.value(screenshotOption);
    tb::ui::saveScreenshotWhenSettled(window, file, [](const tb::Status& status) {
      if (!status) {
        QTextStream(stderr) << "trainbench-studio: "
                            << QString::fromStdString(status.error().message) << Qt::endl;
      }
      QCoreApplication::exit(status ? 0 : kExitRuntime);
    });
    return QApplication::exec();
  }

  window.show();
  return QApplication::exec();
}
