// The "check what I already have" half of the page: files dropped on it or
// added through a dialog are validated off the GUI thread, and the findings
// are listed in a sortable table whose rows open the file at their line.
#pragma once

#include <QStringList>
#include <QWidget>

#include "ui/optimizations/file_validation.h"
#include "ui/widgets/background_task.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace tb::ui {

class CatalogSession;
class FileViewerDialog;
class FindingFilterProxy;
class FindingTableModel;

/// Drop target, file list, findings table and file viewer.
class ValidationPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ValidationPanel(CatalogSession& session, QWidget* parent = nullptr);

  /// Adds files (duplicates ignored) and re-validates every file listed.
  void addFiles(const QStringList& paths);
  /// Replaces the list without losing its order; used to restore settings.
  void setFiles(const QStringList& paths);
  void clearFiles();
  [[nodiscard]] QStringList files() const { return files_; }

  /// True while a validation run is in flight.
  [[nodiscard]] bool isBusy() const;
  /// Opens the viewer at the finding of a row of the view (proxy index).
  void openFinding(const QModelIndex& proxyIndex);

  /// Every finding of the last run, and the sorted, filtered view of them.
  [[nodiscard]] FindingTableModel* model() const { return model_; }
  [[nodiscard]] FindingFilterProxy* proxy() const { return proxy_; }

 Q_SIGNALS:
  /// The list of files changed (for settings).
  void filesChanged(const QStringList& files);
  void busyChanged(bool busy);
  /// A run finished and the table shows its findings.
  void validationFinished();

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void chooseFiles();
  void revalidate();
  void onFinished(const ValidationResult& result);

  CatalogSession& session_;
  /// Supersede: every change of the list re-validates, and only the newest
  /// list's findings are shown.
  BackgroundTask validation_{BackgroundTask::Policy::Supersede};
  QStringList files_;
  FindingTableModel* model_ = nullptr;
  FindingFilterProxy* proxy_ = nullptr;
  QTableView* view_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* dropHint_ = nullptr;
  QComboBox* severityFilter_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* clear_ = nullptr;
  FileViewerDialog* viewer_ = nullptr;
};

}  // namespace tb::ui
