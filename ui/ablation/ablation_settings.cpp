// The keys, their ranges and the model check are declared in
// studio_settings.h with the Studio's other keys. Files that have gone since
// are dropped by the page, not here.
#include "ui/ablation/ablation_settings.h"

#include "tb/bench/ablation_runner.hpp"
#include "ui/qt_text.h"

namespace tb::ui {

AblationPageState AblationSettings::load() const {
  AblationPageState state;
  state.engineFiles = keys::kAblationEngineFiles.get();
  state.clusterFiles = keys::kAblationClusterFiles.get();
  state.lastFolder = keys::kAblationLastFolder.get();
  state.normalised = keys::kAblationNormalised.get();
  state.request.model = keys::kAblationModel.get(state.request.model);
  state.request.repeats = keys::kAblationRepeats.get();
  state.request.steps = keys::kAblationSteps.get();
  return state;
}

void AblationSettings::save(const AblationPageState& state) const {
  SettingsWriter out(access_);
  keys::kAblationEngineFiles.set(out, state.engineFiles);
  keys::kAblationClusterFiles.set(out, state.clusterFiles);
  keys::kAblationLastFolder.set(out, state.lastFolder);
  keys::kAblationNormalised.set(out, state.normalised);
  keys::kAblationModel.set(out, state.request.model);
  keys::kAblationRepeats.set(out, state.request.repeats);
  keys::kAblationSteps.set(out, state.request.steps);
}

QString defaultBenchmarksFolder() {
  return toQString(tb::bench::benchmarksDirectory().string());
}

}  // namespace tb::ui
