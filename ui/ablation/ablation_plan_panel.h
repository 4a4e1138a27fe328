// A cluster plan folder on the Ablation page: every job of the plan with its
// state, from `trainbench ablation status DIR --json` run as a child, and a
// Collect button that runs `trainbench ablation collect DIR --json` and
// hands the results it wrote to the page's charts. The commands own the
// reading (files, scheduler); the panel only shows what they print, so the
// CLI and the Studio can never disagree on a job's state. Followed (on by
// default for a plan whose jobs are under way), the panel asks for the
// status at each interval, collects into the charts each time one more job
// has completed, and stops once every job has ended; each running job shows
// its last step, its throughput so far and the time since its last new
// record, and stands out when that is long.
#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QString>
#include <QWidget>

#include <chrono>
#include <map>
#include <optional>

class QCheckBox;
class QJsonArray;
class QJsonObject;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QTimer;

namespace tb::ui {

class ChildProcess;
struct ChildExit;

/// Whether `path` is a plan folder (it holds plan.json) or a plan.json itself;
/// the folder, or empty when it is neither.
[[nodiscard]] QString planFolderOf(const QString& path);

/// The plan's jobs, Refresh, Collect and Cancel; hidden until a plan is open.
class AblationPlanPanel : public QWidget {
  Q_OBJECT

 public:
  explicit AblationPlanPanel(QWidget* parent = nullptr);

  /// Shows the plan in `folder` and asks for its status; results collected
  /// before (DIR/results.json) are handed over at once.
  void openFolder(const QString& folder);
  [[nodiscard]] QString folder() const { return folder_; }
  [[nodiscard]] bool isBusy() const;
  [[nodiscard]] QTableWidget* jobTable() const { return jobs_; }
  [[nodiscard]] bool isFollowing() const;
  /// Time between looks while following (default 5 s: each asks the scheduler).
  void setFollowInterval(std::chrono::milliseconds interval);

 public Q_SLOTS:
  void refresh();
  void collect();
  void cancel();
  void setFollowing(bool on);

 Q_SIGNALS:
  /// collect wrote (or an opened plan holds) this results.json.
  void resultsWritten(const QString& resultsPath);
  /// A status or collect child ended; `ok` when it succeeded.
  void taskFinished(bool ok);

 private:
  enum class Task { None, Status, Collect };

  void start(Task task, const QString& subcommand);
  void onFinished(const ChildExit& ended);
  void showDocument(const QByteArray& json);
  void showJobs(const QJsonArray& jobs);
  void showProgress(int row, const QJsonObject& job, const QDateTime& now);
  void followAfterStatus(const QJsonArray& jobs);
  void setBusy(bool busy, const QString& status);

  /// What the panel has seen of a job between looks, by its order.
  struct JobProgress {
    std::optional<qint64> lastStep;
    qint64 records = 0;
    QDateTime firstSeenAt;
    QDateTime lastRecordAt;  ///< when a look found it grown
  };

  QString folder_;
  Task task_ = Task::None;
  QByteArray output_;
  ChildProcess* child_ = nullptr;
  QLabel* title_ = nullptr;
  QLabel* status_ = nullptr;
  QProgressBar* busy_ = nullptr;
  QTableWidget* jobs_ = nullptr;
  QPushButton* refresh_ = nullptr;
  QPushButton* collect_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QCheckBox* follow_ = nullptr;
  QTimer* followTimer_ = nullptr;
  std::map<int, JobProgress> progress_;
  int collectedJobs_ = 0;    ///< completed jobs when the charts were last collected
  bool autoFollow_ = false;  ///< the next status decides whether to follow
};

}  // namespace tb::ui
