// The "run a new ablation" form and its progress: the model, repeats and
// steps for `trainbench benchmark`, Run and Cancel, an overall bar, the
// current run and its step bar, and one row per configuration saying how
// many of its runs have ended and how. It only shows state; the page owns
// the child process and feeds it the benchmark's events.
#pragma once

#include <QGroupBox>
#include <QString>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "tb/runs/benchmark_event.hpp"
#include "ui/ablation/benchmark_process.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace tb::ui {

/// Form, buttons and per-configuration progress of a benchmark run.
class AblationRunPanel : public QGroupBox {
  Q_OBJECT

 public:
  explicit AblationRunPanel(QWidget* parent = nullptr);

  /// What the step bar says while no run is going on.
  [[nodiscard]] static QString idleStepText();

  /// The form's values (outDir is left to the page).
  [[nodiscard]] BenchmarkRequest request() const;
  void setRequest(const BenchmarkRequest& request);

  /// Clears the progress for a run of `repeats` per configuration (until
  /// the benchmark's plan says otherwise) and switches the buttons to "running".
  void begin(int repeats);
  /// One event of the benchmark: the plan sets the runs to expect, a run's
  /// start and steps the current run and the step bar, a run's end its state.
  void applyProgress(const tb::runs::BenchmarkEvent& event);
  /// Back to idle; `text` says how it ended.
  void end(const QString& text, bool isError);
  void appendLog(const QString& line);
  void setStatus(const QString& text);

  [[nodiscard]] QPushButton* cancelButton() const { return cancel_; }
  /// Ended runs (whatever their state) of the configuration at chain position `index`.
  [[nodiscard]] int finishedRuns(int index) const;

 Q_SIGNALS:
  void runRequested();
  void cancelRequested();

 private:
  /// One row of the table.
  struct Configuration {
    int planned = 0;  ///< runs the plan has for it; 0 before any benchmark
    /// By repeat: how each ended run ended; none while it has not.
    std::vector<std::optional<tb::runs::RunState>> ended;
  };

  void applyPlan(const tb::runs::BenchmarkPlan& plan);
  void applyRunStart(const tb::runs::BenchmarkEvent& event);
  void applyRunStep(const tb::runs::BenchmarkEvent& event);
  void applyRunEnd(const tb::runs::BenchmarkEvent& event);
  void applySummary(const tb::runs::BenchmarkSummary& summary);
  void followTotal(std::int64_t total);
  void resetStepBar();
  void showCounts();
  void setFormEnabled(bool enabled);

  QComboBox* model_;
  QSpinBox* repeats_;
  QSpinBox* steps_;
  QPushButton* run_;
  QPushButton* cancel_;
  QProgressBar* progress_;
  QProgressBar* stepProgress_;
  QTableWidget* table_;
  QLabel* status_;
  QPlainTextEdit* log_;
  std::array<Configuration, 4> configurations_;
  int runningIndex_ = -1;  ///< chain position of the run going on; -1 between runs
};

}  // namespace tb::ui
