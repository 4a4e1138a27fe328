// What one `trainbench run` will do, as a form. The shape fields always show
// the model that will train: choosing a preset fills them, and editing one
// turns it into an override flag, so the command line never says more than
// the user changed. Invalid input disables Start and says which field is bad.
// The engine's own switches (runtime, compiled step) are always passed, so a
// run's command line says which ablation step it measured.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

#include <array>
#include <cstdint>

#include "tb/common/expected.hpp"
#include "tb/model/model_config.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace tb::ui {

/// Everything the form holds, as plain values: what the page persists.
struct RunFormChoices {
  QString preset = QStringLiteral("tiny");
  /// Shape values in spin order; a value equal to the preset's is no override.
  std::array<int, 8> shape{};
  int steps = 200;
  int threads = 0;    ///< 0: physical cores (shared among the processes)
  int processes = 1;  ///< data-parallel worker processes (trainbench run --nproc-per-node)
  QString recompute = QStringLiteral("none");
  int memoryBudgetMiB = 0;                    ///< 0: unlimited
  QString data = QStringLiteral("random");    ///< random, synthetic or file
  QString dataFile;                           ///< the text file when data is "file"
  QString device = QStringLiteral("cpu");     ///< cpu or cuda
  QString runtime = QStringLiteral("tuned");  ///< tuned or stock
  bool compile = false;
};

/// Edits a run's model, data, steps, threads, recompute policy, memory
/// budget, device, runtime and compiled step.
class RunForm : public QWidget {
  Q_OBJECT

 public:
  /// Shape fields in spin order: vocab, dim, layers, heads, kv, ffn, seq, batch.
  static constexpr std::size_t kShapeFields = 8;

  explicit RunForm(QWidget* parent = nullptr);

  /// The `trainbench run` arguments (without `--events`), or what is wrong.
  [[nodiscard]] tb::Expected<QStringList> arguments() const;
  /// The model the run will train (preset plus overrides).
  [[nodiscard]] tb::model::ModelConfig model() const;
  [[nodiscard]] std::uint64_t memoryBudgetBytes() const;
  [[nodiscard]] int steps() const;

  void setPreset(const QString& name);
  void setSteps(int steps);
  void setThreads(int threads);
  void setProcesses(int processes);
  void setMemoryBudgetMiB(int mib);
  void setRecomputePolicy(const QString& policy);
  /// Selects the runtime --runtime spells `runtime` ("tuned", "stock"); an
  /// unknown name leaves the choice as it was.
  void setRuntime(const QString& runtime);
  [[nodiscard]] QString runtime() const;
  [[nodiscard]] QString recomputePolicy() const;

  /// The form's state, and its inverse; unknown names keep the current value.
  [[nodiscard]] RunFormChoices choices() const;
  void setChoices(const RunFormChoices& choices);

 Q_SIGNALS:
  /// Any field changed; arguments() may have become valid or invalid.
  void changed();

 private:
  QWidget* buildEngineBox();
  void onPresetChosen();
  void onDataChosen();
  void chooseDataFile();
  void refreshSummary();
  [[nodiscard]] tb::Status checkData() const;
  [[nodiscard]] tb::model::ModelConfig presetModel() const;

  QComboBox* preset_;
  std::array<QSpinBox*, kShapeFields> shape_{};
  QSpinBox* steps_;
  QSpinBox* threads_;
  QSpinBox* processes_;
  QComboBox* recompute_;
  QSpinBox* budgetMiB_;
  QComboBox* data_;
  QLineEdit* dataFile_;
  QPushButton* browse_;
  QComboBox* device_ = nullptr;
  QComboBox* runtime_ = nullptr;
  QCheckBox* compile_ = nullptr;
  QLabel* summary_;
  bool filling_ = false;
};

}  // namespace tb::ui
