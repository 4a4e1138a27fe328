// The "run a new ablation" form and its progress: the model, repeats and
// steps for `trainbench benchmark`, Run and Cancel, an overall bar and one
// row per configuration saying how many of its repeats have finished. It
// only shows state; the page owns the child process and feeds it progress.
#pragma once

#include <QGroupBox>
#include <QString>

#include <array>

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

  /// The form's values (outDir is left to the page).
  [[nodiscard]] BenchmarkRequest request() const;
  void setRequest(const BenchmarkRequest& request);

  /// Clears the progress for a run of `repeats` per configuration and
  /// switches the buttons to "running".
  void begin(int repeats);
  void applyProgress(const BenchmarkProgress& progress);
  /// Back to idle; `text` says how it ended.
  void end(const QString& text, bool isError);
  void appendLog(const QString& line);
  void setStatus(const QString& text);

  [[nodiscard]] QComboBox* modelBox() const { return model_; }
  [[nodiscard]] QSpinBox* repeatsBox() const { return repeats_; }
  [[nodiscard]] QSpinBox* stepsBox() const { return steps_; }
  [[nodiscard]] QPushButton* runButton() const { return run_; }
  [[nodiscard]] QPushButton* cancelButton() const { return cancel_; }
  [[nodiscard]] QProgressBar* progressBar() const { return progress_; }
  [[nodiscard]] QTableWidget* configurationTable() const { return table_; }
  [[nodiscard]] QLabel* statusLabel() const { return status_; }
  /// Finished runs of the configuration at chain position `index`.
  [[nodiscard]] int finishedRuns(int index) const;

 Q_SIGNALS:
  void runRequested();
  void cancelRequested();

 private:
  void showCounts();

  QComboBox* model_;
  QSpinBox* repeats_;
  QSpinBox* steps_;
  QPushButton* run_;
  QPushButton* cancel_;
  QProgressBar* progress_;
  QTableWidget* table_;
  QLabel* status_;
  QPlainTextEdit* log_;
  std::array<int, 4> finished_{};
  std::array<QString, 4> lastStatus_;
  int repeatsPerConfiguration_ = 1;
  int runningIndex_ = -1;
};

}  // namespace tb::ui
