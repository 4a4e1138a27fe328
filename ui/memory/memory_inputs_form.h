// The Memory page's inputs: model (preset plus shape overrides), training
// shape, parallel layout, profile and card. The form owns no logic beyond
// keeping its widgets consistent; it reports one MemoryPageInputs value.
#pragma once

#include <QWidget>

#include "ui/memory/memory_page_inputs.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QSpinBox;

namespace tb::ui {

/// Every input of a memory prediction, grouped as a user thinks of them.
class MemoryInputsForm : public QWidget {
  Q_OBJECT

 public:
  explicit MemoryInputsForm(QWidget* parent = nullptr);

  [[nodiscard]] MemoryPageInputs inputs() const;
  /// Shows `inputs` and emits inputsChanged() once.
  void setInputs(const MemoryPageInputs& inputs);

 Q_SIGNALS:
  /// Any field changed (already consistent: e.g. K within the layers).
  void inputsChanged();

 private:
  QWidget* buildModelGroup();
  QWidget* buildTrainingGroup();
  QWidget* buildParallelGroup();
  QWidget* buildTargetGroup();
  QSpinBox* addSpin(QFormLayout* form, const QString& label, const char* name, int low, int high,
                    const QString& tip);
  void choosePreset(const QString& preset);
  void refreshDerived();
  void changed();

  QComboBox* preset_ = nullptr;
  QLabel* modelSummary_ = nullptr;
  QSpinBox* vocab_ = nullptr;
  QSpinBox* dim_ = nullptr;
  QSpinBox* layers_ = nullptr;
  QSpinBox* heads_ = nullptr;
  QSpinBox* kvHeads_ = nullptr;
  QSpinBox* ffn_ = nullptr;
  QSpinBox* seq_ = nullptr;
  QSpinBox* batch_ = nullptr;
  QComboBox* dtype_ = nullptr;
  QComboBox* recompute_ = nullptr;
  QSpinBox* recomputeLayers_ = nullptr;
  QSpinBox* dp_ = nullptr;
  QSpinBox* tp_ = nullptr;
  QSpinBox* pp_ = nullptr;
  QSpinBox* cp_ = nullptr;
  QComboBox* zero_ = nullptr;
  QCheckBox* sequenceParallel_ = nullptr;
  QCheckBox* flashAttention_ = nullptr;
  QComboBox* profile_ = nullptr;
  QComboBox* runtime_ = nullptr;
  QCheckBox* compile_ = nullptr;
  QComboBox* card_ = nullptr;
  QDoubleSpinBox* customGiB_ = nullptr;
  bool updating_ = false;
};

}  // namespace tb::ui
