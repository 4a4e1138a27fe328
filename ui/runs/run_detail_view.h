// A stored run's curves. events.jsonl of a long run is tens of megabytes, so
// it is read and parsed on a worker thread; a newer selection supersedes an
// older load instead of racing it.
#pragma once

#include <QString>
#include <QWidget>

#include "tb/common/expected.hpp"
#include "tb/runs/run_event.hpp"
#include "tb/runs/run_store.hpp"
#include "ui/widgets/background_task.h"

class QLabel;

namespace tb::ui {

class RunCharts;

/// Header (id, state, reason) and curves of one stored run.
class RunDetailView : public QWidget {
  Q_OBJECT

 public:
  explicit RunDetailView(QWidget* parent = nullptr);

  /// Shows `run` and starts loading its events.
  void showRun(const tb::runs::RunRecord& run);
  void clearRun();

  [[nodiscard]] bool isLoading() const { return loading_.isRunning(); }
  [[nodiscard]] QString shownDirectory() const { return directory_; }
  [[nodiscard]] QString headerText() const;

 Q_SIGNALS:
  /// The events of the shown run are on the charts (or the reason they are not).
  void loaded();

 private:
  void onLoaded(const tb::Expected<tb::runs::EventFile>& result);

  QLabel* header_;
  QLabel* problems_;
  RunCharts* charts_;
  /// Supersede: clicking through the list faster than files load reads only
  /// the newest selection's events.
  BackgroundTask loading_{BackgroundTask::Policy::Supersede};
  QString directory_;
};

}  // namespace tb::ui
