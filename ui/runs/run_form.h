// What one `trainbench run` will do, as a form. The shape fields always show
// the model that will train: choosing a preset fills them, and editing one
// turns it into an override flag, so the command line never says more than
// the user changed. Invalid input disables Start and says which field is bad.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

#include <array>
#include <cstdint>

#include "tb/common/expected.hpp"
#include "tb/model/model_config.hpp"

class QComboBox;
class QLabel;
class QSpinBox;

namespace tb::ui {

/// Edits a run's model, steps, threads, recompute policy and memory budget.
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
  void setMemoryBudgetMiB(int mib);
  void setRecomputePolicy(const QString& policy);
  [[nodiscard]] QString recomputePolicy() const;

  [[nodiscard]] QComboBox* presetCombo() const { return preset_; }
  [[nodiscard]] QComboBox* recomputeCombo() const { return recompute_; }
  [[nodiscard]] QSpinBox* stepsSpin() const { return steps_; }
  [[nodiscard]] QSpinBox* shapeSpin(int field) const;

 Q_SIGNALS:
  /// Any field changed; arguments() may have become valid or invalid.
  void changed();

 private:
  void onPresetChosen();
  void refreshSummary();
  [[nodiscard]] tb::model::ModelConfig presetModel() const;

  QComboBox* preset_;
  std::array<QSpinBox*, kShapeFields> shape_{};
  QSpinBox* steps_;
  QSpinBox* threads_;
  QComboBox* recompute_;
  QSpinBox* budgetMiB_;
  QLabel* summary_;
  bool filling_ = false;
};

}  // namespace tb::ui
