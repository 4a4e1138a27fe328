// The Studio's main window: a sidebar of pages and the page stack, the menus,
// and window state that survives a restart. Pages are created here and get
// the shared CatalogSession; the window itself holds no page logic.
#pragma once

#include <QMainWindow>
#include <QString>
#include <QVariantMap>

#include "tb/catalog/catalog.hpp"
#include "tb/common/expected.hpp"
#include "ui/studio_settings.h"

class QListWidget;
class QStackedWidget;
class QLabel;
class QMenu;

namespace tb::ui {

class AblationPage;
class CatalogSession;
class ImagePage;
class MemoryPage;
class OptimizationsPage;
class ReportsPage;
class RunsPage;

/// How the window starts.
struct MainWindowOptions {
  QString initialPage;  ///< a built page id; empty: the last page used, else "image"
  SettingsAccess settingsAccess = SettingsAccess::ReadWrite;
};

/// Sidebar + page stack + menus.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  /// The default size when nothing is saved, and the size of screenshots.
  static constexpr QSize kDefaultSize{1400, 900};

  MainWindow(tb::catalog::Catalog catalog, MainWindowOptions options, QWidget* parent = nullptr);
  ~MainWindow() override;

  [[nodiscard]] CatalogSession& session() const { return *session_; }
  /// Shows a built page; false (and nothing changes) for any other id.
  bool showPage(const QString& id);
  [[nodiscard]] QString currentPageId() const;
  /// Ids in the sidebar, in order.
  [[nodiscard]] QStringList sidebarPageIds() const;

  /// True while a page is still working (host detection, file validation, a
  /// memory plan); see settled().
  [[nodiscard]] bool isBusy() const;

  /// Loads an extra catalog as File > Load Catalog does: on error a message
  /// box (window-modal, not blocking the caller) names the file, the JSON
  /// path and the problem, and the catalog is unchanged.
  tb::Status loadCatalogInteractively(const QString& path);

  /// Opens files as the command line and the desktop hand them over
  /// (open_files.h says where each goes) and shows the page of the last
  /// one. A bad or unknown file is said on its page (or in the catalog's
  /// message box); the window goes on.
  void openFiles(const QStringList& paths);

 Q_SIGNALS:
  /// Emitted when the window stops being busy.
  void settled();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void changeEvent(QEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  // main_window_menus.cpp: the menus, their shortcuts and what they open.
  void buildMenus();
  void chooseFilesToOpen();
  void fillRecentMenu(QMenu* menu);
  void rememberRecent(const QStringList& paths);
  void openDocumentation();
  void addPage(const QString& id, QWidget* page);
  void chooseCatalogFile();
  void showAbout();
  void updateStatusBar();
  void shadeSidebar();
  void saveWindowState();
  /// Puts back the sizes of the named splitters (keys::kWindowSplitters).
  void restoreSplitters(const QVariantMap& states);
  void connectPages();
  void applyRecommendation(const QString& policy, const QString& runtime);
  void onPageBusyChanged(bool busy);

  StudioSettings settings_;
  CatalogSession* session_ = nullptr;
  QListWidget* sidebar_ = nullptr;
  QStackedWidget* stack_ = nullptr;
  QLabel* catalogStatus_ = nullptr;
  ImagePage* imagePage_ = nullptr;
  OptimizationsPage* optimizationsPage_ = nullptr;
  MemoryPage* memoryPage_ = nullptr;
  RunsPage* runsPage_ = nullptr;
  AblationPage* ablationPage_ = nullptr;
  ReportsPage* reportsPage_ = nullptr;
  QStringList pageIds_;  ///< stack index -> page id
};

}  // namespace tb::ui
