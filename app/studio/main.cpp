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

}  // namespace

int main(int argc, char* argv[]) {
  tb::reportFileSizeLimitAsWriteError();
  QApplication app(argc, argv);
  tb::ui::applyApplicationIdentity();

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QApplication::translate("main",
                              "Compatibility, configuration, memory and ablation tooling for "
                              "training-nv-pytorch images."));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption pageOption(QStringLiteral("page"),
                                      QApplication::translate("main", "Open this page: %1.")
                                          .arg(tb::ui::studioPageIds().join(QStringLiteral(", "))),
                                      QStringLiteral("id"));
  const QCommandLineOption screenshotOption(
      QStringLiteral("screenshot"),
      QApplication::translate("main", "Render the window to a PNG file and exit."),
      QStringLiteral("file"));
  const QCommandLineOption catalogOption(
      QStringLiteral("catalog"),
      QApplication::translate("main", "Lay an extra catalog file over the built-in one."),
      QStringLiteral("file"));
  parser.addOptions({pageOption, screenshotOption, catalogOption});
  parser.addPositionalArgument(
      QStringLiteral("files"),
      QApplication::translate("main",
                              "Files to open: results, cluster files and training logs on the "
                              "Ablation page; DeepSpeed JSON, env files, Kubernetes manifests, "
                              "Dockerfiles and TrainingArguments scripts in the validator; a "
                              "catalog as File > Load Catalog."),
      QStringLiteral("[FILE...]"));
  parser.process(app);  // exits on --help, --version and unknown options

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
