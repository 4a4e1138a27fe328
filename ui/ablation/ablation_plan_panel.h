// A cluster plan folder on the Ablation page: every job of the plan with its
// state, from `trainbench ablation status DIR --json` run as a child, and a
// Collect button that runs `trainbench ablation collect DIR --json` and
// hands the results it wrote to the page's charts. The commands own the
// reading (files, scheduler); the panel only shows what they print, so the
// CLI and the Studio can never disagree on a job's state.
#pragma once

#include <QByteArray>
#include <QString>
#include <QWidget>

class QJsonArray;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

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

 public Q_SLOTS:
  void refresh();
  void collect();
  void cancel();

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
  void setBusy(bool busy, const QString& status);

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
};

}  // namespace tb::ui
