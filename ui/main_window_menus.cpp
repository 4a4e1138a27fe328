// The window's menus: standard keys where the desktop has them (Open, Quit,
// Help), Ctrl+1..6 for the pages in sidebar order, File > Open Recent, and
// the documentation the package ships. Every action is in a menu, so every
// one is reachable from the keyboard (Alt and the underlined letter).
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDesktopServices>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QStandardPaths>
#include <QStatusBar>
#include <QUrl>

#include <utility>

#include "ui/application_identity.h"
#include "ui/main_window.h"
#include "ui/recent_files.h"
#include "ui/theme.h"
#include "ui/widgets/ink_icon.h"

namespace tb::ui {
namespace {

/// The shipped documentation: share/doc/trainbench/docs beside an installed
/// binary, else the source tree's docs/ (a build tree).
QString documentationFolder() {
  const QDir bin(QCoreApplication::applicationDirPath());
  for (const QString& candidate :
       {bin.absoluteFilePath(QStringLiteral("../share/doc/trainbench/docs")),
        QStringLiteral(TB_SOURCE_DOCS_DIR)}) {
    if (QFileInfo(candidate).isDir()) return QDir::cleanPath(candidate);
  }
  return {};
}

QStringList localFiles(const QMimeData* data) {
  QStringList paths;
  if (data == nullptr) return paths;
  for (const QUrl& url : data->urls()) {
    if (url.isLocalFile()) paths.append(url.toLocalFile());
  }
  return paths;
}

}  // namespace

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open\u2026"), this, &MainWindow::chooseFilesToOpen);
  open->setObjectName(QStringLiteral("openAction"));
  open->setShortcut(QKeySequence::Open);
  open->setStatusTip(
      tr("Open results, cluster files, training logs, configs to check, or a catalog"));
  QMenu* recent = file->addMenu(tr("Open &Recent"));
  recent->setObjectName(QStringLiteral("recentMenu"));
  // Filled when shown: its files are checked for existence then, not at start-up.
  connect(recent, &QMenu::aboutToShow, this, [this, recent] { fillRecentMenu(recent); });
  QAction* load = file->addAction(inkIcon(QStringLiteral(":/icons/open-catalog.svg")),
                                  tr("Load &Catalog\u2026"), this, &MainWindow::chooseCatalogFile);
  load->setStatusTip(tr("Lay an extra catalog file over the current releases"));
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* go = menuBar()->addMenu(tr("&Go"));
  go->setObjectName(QStringLiteral("goMenu"));
  for (int row = 0; row < sidebar_->count(); ++row) {
    const QString id = sidebar_->item(row)->data(Qt::UserRole).toString();
    QAction* page = go->addAction(sidebar_->item(row)->icon(), sidebar_->item(row)->text(), this,
                                  [this, id] { showPage(id); });
    page->setObjectName(id + QStringLiteral("PageAction"));
    if (row < 9) page->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + row)));
  }

  QMenu* view = menuBar()->addMenu(tr("&View"));
  QMenu* theme = view->addMenu(tr("&Theme"));
  auto* themes = new QActionGroup(this);
  const ThemeChoice stored = themeFromName(keys::kTheme.get());
  for (const auto& [choice, text] :
       {std::pair{ThemeChoice::System, tr("Follow the &System")},
        std::pair{ThemeChoice::Light, tr("&Light")}, std::pair{ThemeChoice::Dark, tr("&Dark")}}) {
    QAction* action = theme->addAction(text);
    action->setObjectName(QStringLiteral("theme%1Action").arg(themeName(choice)));
    action->setCheckable(true);
    action->setChecked(choice == stored);
    themes->addAction(action);
    connect(action, &QAction::triggered, this, [this, choice] {
      applyThemeChoice(choice);
      SettingsWriter writer(settings_.access());
      keys::kTheme.set(writer, themeName(choice));
    });
  }

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* docs = help->addAction(tr("&Documentation"), this, &MainWindow::openDocumentation);
  docs->setObjectName(QStringLiteral("documentationAction"));
  docs->setShortcut(QKeySequence::HelpContents);
  help->addSeparator();
  help->addAction(tr("&About %1").arg(applicationName()), this, &MainWindow::showAbout)
      ->setObjectName(QStringLiteral("aboutAction"));
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::chooseFilesToOpen() {
  const QString start = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  const QStringList paths =
      QFileDialog::getOpenFileNames(this, tr("Open"), start,
                                    tr("Files the Studio reads (*.json *.csv *.log *.txt *.env "
                                       "*.yaml *.yml *.py Dockerfile*);;All files (*)"));
  if (!paths.isEmpty()) openFiles(paths);
}

void MainWindow::fillRecentMenu(QMenu* menu) {
  menu->clear();
  const QStringList recent = existingRecent(keys::kRecentFiles.get());
  for (int index = 0; index < recent.size(); ++index) {
    const QString& path = recent.at(index);
    // &1..&9, then &0: the first ten by one key each.
    const QString text =
        QStringLiteral("&%1 %2").arg((index + 1) % 10).arg(QFileInfo(path).fileName());
    QAction* action = menu->addAction(text, this, [this, path] { openFiles({path}); });
    action->setStatusTip(path);
    action->setToolTip(path);
  }
  if (recent.isEmpty()) menu->addAction(tr("No recent files"))->setEnabled(false);
  menu->addSeparator();
  QAction* clear = menu->addAction(tr("&Clear Menu"), this, [this] {
    SettingsWriter writer(settings_.access());
    keys::kRecentFiles.set(writer, {});
  });
  clear->setEnabled(!recent.isEmpty());
}

void MainWindow::rememberRecent(const QStringList& paths) {
  SettingsWriter writer(settings_.access());
  keys::kRecentFiles.set(writer, withOpened(existingRecent(keys::kRecentFiles.get()), paths));
}

void MainWindow::openDocumentation() {
  const QString folder = documentationFolder();
  if (folder.isEmpty() || !QDesktopServices::openUrl(QUrl::fromLocalFile(folder))) {
    statusBar()->showMessage(folder.isEmpty() ? tr("The documentation is not installed")
                                              : tr("No program opens %1").arg(folder),
                             8000);
  }
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!localFiles(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QStringList paths = localFiles(event->mimeData());
  if (paths.isEmpty()) return;
  event->acceptProposedAction();
  openFiles(paths);
}

}  // namespace tb::ui
