// The Ablation page: the results of `trainbench benchmark`, imported
// cluster runs and the logs real training runs wrote (dropped on the page or
// opened with Import log…) side by side in one table and four charts, and a
// form that runs a new ablation as a child process (ARCHITECTURE.md: a crash
// or an out-of-memory run ends the child, never the window).
#pragma once

#include <QString>
#include <QWidget>

#include "tb/bench/results.hpp"
#include "tb/common/expected.hpp"
#include "ui/ablation/ablation_log_import.h"
#include "ui/ablation/ablation_settings.h"
#include "ui/ablation/ablation_source_model.h"
#include "ui/ablation/benchmark_process.h"

class QCheckBox;
class QDragEnterEvent;
class QDropEvent;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace tb::plotting {
class AblationThroughputChart;
class LossCurvesChart;
class PeakMemoryChart;
class StepTimeChart;
}  // namespace tb::plotting

namespace tb::ui {

class AblationPlanPanel;
class AblationRunPanel;
class AblationTableModel;
class LogFollowSet;

/// Source files, the merged table, the four charts and the benchmark form.
class AblationPage : public QWidget {
  Q_OBJECT

 public:
  /// `settings` says whether choices may be written back; it must outlive the page.
  explicit AblationPage(const StudioSettings& settings, QWidget* parent = nullptr);
  ~AblationPage() override;

  /// Loads a results.json (or a cluster file) and shows it; on error the
  /// page's message names the file and the line, field or JSON path.
  tb::Status addResultsFile(const QString& path);
  tb::Status importClusterFile(const QString& path);
  /// Reads training logs on a worker under the import row's label and GPU
  /// count, after any given before; each joins the sources when read
  /// (logImport()->batchFinished() says all are in).
  void importLogs(const QStringList& paths);
  /// Files and folders as a file manager drops them: results and cluster
  /// files load at once, a cluster plan folder (or its plan.json) opens in
  /// the plan panel, anything else is read as a training log.
  void openPaths(const QStringList& paths);
  /// Shows the cluster plan in `folder` with its jobs' states, and what was
  /// collected from it.
  void openPlanFolder(const QString& folder);
  [[nodiscard]] AblationPlanPanel* planPanel() const { return planPanel_; }
  [[nodiscard]] AblationLogImport* logImport() const { return logImport_; }
  /// The logs followed as their runs write them.
  [[nodiscard]] LogFollowSet* logFollows() const { return follows_; }
  /// The included sources merged: what the table, the charts and reports show.
  [[nodiscard]] const tb::bench::AblationResults& results() const { return results_; }

  [[nodiscard]] bool isBenchmarkRunning() const;
  /// The outcome of the last benchmark; exitCode -1 before any ended.
  [[nodiscard]] const BenchmarkOutcome& lastBenchmark() const { return lastBenchmark_; }

  [[nodiscard]] AblationSourceModel* sourceModel() const { return sources_; }
  [[nodiscard]] AblationTableModel* tableModel() const { return table_; }

 public Q_SLOTS:
  /// Starts `trainbench benchmark` with the form's values, writing into a
  /// new folder under the benchmarks folder.
  void startBenchmark();
  void cancelBenchmark();

 Q_SIGNALS:
  /// The merged results changed (a file added, removed, switched or loaded).
  void resultsChanged();
  void benchmarkRunningChanged(bool running);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  QWidget* buildSourcesPanel();
  QWidget* buildResultsPanel();
  tb::Status addFile(const QString& path, AblationSourceKind kind);
  void chooseFiles(AblationSourceKind kind);
  void removeSelectedSource();
  void onMergedChanged();
  void onLogImported(const LogImportRequest& request, const tb::logs::ImportedLog& log);
  void onFollowUpdate(const LogImportRequest& request, const tb::logs::ImportedLog& log);
  void onSelectionChanged();
  [[nodiscard]] int selectedRow() const;
  void onBenchmarkFinished(const BenchmarkOutcome& outcome);
  void showMessage(const QString& text, bool isError);
  void restoreState();
  void saveState() const;

  AblationSettings settings_;
  QString lastFolder_;
  tb::bench::AblationResults results_;
  BenchmarkOutcome lastBenchmark_;
  AblationSourceModel* sources_ = nullptr;
  AblationTableModel* table_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QTableView* sourceView_ = nullptr;
  QTableView* tableView_ = nullptr;
  QPushButton* remove_ = nullptr;
  QLabel* message_ = nullptr;
  QLabel* details_ = nullptr;
  AblationLogImport* logImport_ = nullptr;
  LogFollowSet* follows_ = nullptr;
  QLabel* summary_ = nullptr;
  QCheckBox* normalised_ = nullptr;
  tb::plotting::AblationThroughputChart* throughput_ = nullptr;
  tb::plotting::PeakMemoryChart* peak_ = nullptr;
  tb::plotting::StepTimeChart* stepTime_ = nullptr;
  tb::plotting::LossCurvesChart* loss_ = nullptr;
  AblationPlanPanel* planPanel_ = nullptr;
  AblationRunPanel* runPanel_ = nullptr;
  BenchmarkProcess* process_ = nullptr;
  bool restoring_ = false;
};

}  // namespace tb::ui
