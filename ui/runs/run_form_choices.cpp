// The form's state as plain values, for the page's settings. Setting it goes
// through the widgets themselves, so every value passes the same range checks
// (spins clamp) and the same signals as a user's edit.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSpinBox>

#include "ui/runs/run_form.h"

namespace tb::ui {
namespace {

static_assert(std::tuple_size_v<decltype(RunFormChoices::shape)> == RunForm::kShapeFields);

// Selects the item whose data is `value`; an unknown value changes nothing.
void selectData(QComboBox* combo, const QString& value) {
  const int index = combo->findData(value);
  if (index >= 0) combo->setCurrentIndex(index);
}

}  // namespace

RunFormChoices RunForm::choices() const {
  RunFormChoices c;
  c.preset = preset_->currentText();
  for (std::size_t i = 0; i < kShapeFields; ++i) c.shape[i] = shape_[i]->value();
  c.steps = steps_->value();
  c.threads = threads_->value();
  c.processes = processes_->value();
  c.recompute = recomputePolicy();
  c.memoryBudgetMiB = budgetMiB_->value();
  c.data = data_->currentData().toString();
  c.dataFile = dataFile_->text();
  c.device = device_->currentData().toString();
  c.runtime = runtime_->currentData().toString();
  c.compile = compile_->isChecked();
  return c;
}

void RunForm::setChoices(const RunFormChoices& c) {
  setPreset(c.preset);
  for (std::size_t i = 0; i < kShapeFields; ++i) {
    if (c.shape[i] > 0) shape_[i]->setValue(c.shape[i]);
  }
  steps_->setValue(c.steps);
  threads_->setValue(c.threads);
  processes_->setValue(c.processes);
  if (!c.recompute.isEmpty()) setRecomputePolicy(c.recompute);
  budgetMiB_->setValue(c.memoryBudgetMiB);
  dataFile_->setText(c.dataFile);
  selectData(data_, c.data);
  selectData(device_, c.device);
  selectData(runtime_, c.runtime);
  compile_->setChecked(c.compile);
}

}  // namespace tb::ui
