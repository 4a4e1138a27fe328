// A stored run's curves. events.jsonl of a long run is tens of megabytes, so
// it is read and parsed on a worker thread; a newer selection supersedes an
// older load instead of racing it.
#pragma once

#include <QString>
#include <QWidget>

#include <cstdint>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/runs/run_event.hpp"
#include "tb/runs/run_store.hpp"
#include "ui/widgets/background_task.h"

class QLabel;

namespace tb::ui {

class RunCharts;

/// What the detail view reads of a stored run, on a worker thread.
struct StoredRunEvents {
  tb::Expected<tb::runs::EventFile> events;  ///< the run's own (rank 0's) events.jsonl
  /// A data-parallel run: each rank's memory from its own events (rank 0's
  /// from the run's); empty for one process.
  struct RankMemory {
    int rank = 0;
    std::uint64_t liveBytes = 0;  ///< at its last step
    std::uint64_t peakBytes = 0;
  };
  std::vector<RankMemory> ranks;
};

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
  void onLoaded(const StoredRunEvents& result);

  QLabel* header_;
  QLabel* problems_;
  RunCharts* charts_;
  /// Supersede: clicking through the list faster than files load reads only
  /// the newest selection's events.
  BackgroundTask loading_{BackgroundTask::Policy::Supersede};
  QString directory_;
};

}  // namespace tb::ui
