// Past runs from the run store: a sortable, filterable table over the same
// directories the CLI writes, and the selected run's curves below it. The
// store is listed on a worker thread (each run is two small files, but a
// store can hold thousands of runs on a network home directory).
#pragma once

#include <QString>
#include <QWidget>

#include <vector>

#include "tb/common/expected.hpp"
#include "tb/runs/run_store.hpp"
#include "ui/widgets/background_task.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace tb::ui {

class RunDetailView;
class RunSortProxy;
class RunTableModel;

/// The runs table, its filter and Refresh button, and the detail view.
class RunHistoryPanel : public QWidget {
  Q_OBJECT

 public:
  explicit RunHistoryPanel(QWidget* parent = nullptr);

  /// Lists the store again; the run in `selectDirectory` (if any) is then selected.
  void refresh(const QString& selectDirectory = {});
  [[nodiscard]] bool isRefreshing() const { return listing_.isRunning(); }

  [[nodiscard]] RunTableModel* model() const { return model_; }
  [[nodiscard]] RunSortProxy* proxy() const { return proxy_; }

 Q_SIGNALS:
  void refreshed();

 private:
  void onListed(tb::Expected<std::vector<tb::runs::RunRecord>> listed);
  void onSelectionChanged();

  RunTableModel* model_;
  RunSortProxy* proxy_;
  QTableView* table_;
  QLineEdit* filter_;
  QPushButton* refresh_;
  QLabel* status_;
  RunDetailView* detail_;
  /// Supersede: a refresh asked for while one lists starts over, so a run
  /// that ended after the older listing began still appears.
  BackgroundTask listing_{BackgroundTask::Policy::Supersede};
  QString selectAfterRefresh_;
};

}  // namespace tb::ui
