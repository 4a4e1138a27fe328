// The shape is stored as one list of eight numbers rather than eight keys:
// it is written and read as a whole, and a list of the wrong length (an
// older or hand-edited file) is dropped as a whole, leaving the preset's.
// The keys are declared in studio_settings.h.
#include "ui/runs/run_settings.h"

namespace tb::ui {

RunFormChoices RunSettings::load() const {
  RunFormChoices c;
  c.preset = keys::kRunsPreset.get(c.preset);
  const QVariantList shape = keys::kRunsShape.get();
  if (static_cast<std::size_t>(shape.size()) == c.shape.size()) {
    for (std::size_t i = 0; i < c.shape.size(); ++i) {
      bool ok = false;
      const int value = shape[static_cast<qsizetype>(i)].toInt(&ok);
      c.shape[i] = ok ? value : 0;
    }
  }
  c.steps = keys::kRunsSteps.get(c.steps);
  c.threads = keys::kRunsThreads.get(c.threads);
  c.processes = keys::kRunsProcesses.get(c.processes);
  c.recompute = keys::kRunsRecompute.get(c.recompute);
  c.memoryBudgetMiB = keys::kRunsMemoryBudgetMiB.get(c.memoryBudgetMiB);
  c.data = keys::kRunsData.get(c.data);
  c.dataFile = keys::kRunsDataFile.get(c.dataFile);
  c.device = keys::kRunsDevice.get(c.device);
  c.runtime = keys::kRunsRuntime.get(c.runtime);
  c.compile = keys::kRunsCompile.get(c.compile);
  return c;
}

void RunSettings::save(const RunFormChoices& c) const {
  SettingsWriter out(access_);
  keys::kRunsPreset.set(out, c.preset);
  QVariantList shape;
  for (const int value : c.shape) shape.append(value);
  keys::kRunsShape.set(out, shape);
  keys::kRunsSteps.set(out, c.steps);
  keys::kRunsThreads.set(out, c.threads);
  keys::kRunsProcesses.set(out, c.processes);
  keys::kRunsRecompute.set(out, c.recompute);
  keys::kRunsMemoryBudgetMiB.set(out, c.memoryBudgetMiB);
  keys::kRunsData.set(out, c.data);
  keys::kRunsDataFile.set(out, c.dataFile);
  keys::kRunsDevice.set(out, c.device);
  keys::kRunsRuntime.set(out, c.runtime);
  keys::kRunsCompile.set(out, c.compile);
}

}  // namespace tb::ui
