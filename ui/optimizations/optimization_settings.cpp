// The keys and their checks are declared in studio_settings.h (a hand-edited
// file with gpus=3 must not leave the form in a state the core refuses);
// anything missing or out of range keeps the ImageConfig default, which is
// the core's and so is passed to get() here.
#include "ui/optimizations/optimization_settings.h"

#include "ui/qt_text.h"

namespace tb::ui {
namespace {

std::string text(const SettingValue<QString>& setting, const std::string& fallback) {
  return toStdString(setting.get(toQString(fallback)));
}

}  // namespace

OptimizationChoices OptimizationSettings::load() const {
  OptimizationChoices choices;
  tb::config::ImageConfig& c = choices.config;
  c.registry = keys::kOptimizationsRegistry.get() == QStringLiteral("vpc")
                   ? tb::config::RegistryKind::Vpc
                   : tb::config::RegistryKind::Public;
  c.region = text(keys::kOptimizationsRegion, c.region);
  c.gpusPerPod = keys::kOptimizationsGpusPerPod.get(c.gpusPerPod);
  c.nodes = keys::kOptimizationsNodes.get(c.nodes);
  c.compilerOptimization = keys::kOptimizationsCompile.get(c.compilerOptimization);
  c.gradientCheckpointing = keys::kOptimizationsGradientCheckpointing.get(c.gradientCheckpointing);
  c.checkpointOptimization =
      keys::kOptimizationsCheckpointOptimization.get(c.checkpointOptimization);
  c.bf16 = keys::kOptimizationsBf16.get(c.bf16);
  c.deepspeed.zeroStage = keys::kOptimizationsZeroStage.get(c.deepspeed.zeroStage);
  c.deepspeed.offloadOptimizer =
      keys::kOptimizationsOffloadOptimizer.get(c.deepspeed.offloadOptimizer);
  c.deepspeed.offloadParameters =
      keys::kOptimizationsOffloadParameters.get(c.deepspeed.offloadParameters);
  c.model = text(keys::kOptimizationsModel, c.model);
  c.microBatch = keys::kOptimizationsMicroBatch.get(c.microBatch);
  c.gradientAccumulation = keys::kOptimizationsGradientAccumulation.get(c.gradientAccumulation);
  c.seqLength = keys::kOptimizationsSeqLength.get(c.seqLength);
  c.jobName = text(keys::kOptimizationsJobName, c.jobName);
  choices.validationFiles = keys::kOptimizationsValidationFiles.get();
  const auto tab = tb::config::parseArtifactKind(toStdString(keys::kOptimizationsPreviewTab.get()));
  if (tab) choices.previewTab = *tab;
  return choices;
}

void OptimizationSettings::save(const OptimizationChoices& choices) const {
  SettingsWriter out(access_);
  const tb::config::ImageConfig& c = choices.config;
  keys::kOptimizationsRegistry.set(out, toQString(tb::config::toString(c.registry)));
  keys::kOptimizationsRegion.set(out, toQString(c.region));
  keys::kOptimizationsGpusPerPod.set(out, c.gpusPerPod);
  keys::kOptimizationsNodes.set(out, c.nodes);
  keys::kOptimizationsCompile.set(out, c.compilerOptimization);
  keys::kOptimizationsGradientCheckpointing.set(out, c.gradientCheckpointing);
  keys::kOptimizationsCheckpointOptimization.set(out, c.checkpointOptimization);
  keys::kOptimizationsBf16.set(out, c.bf16);
  keys::kOptimizationsZeroStage.set(out, c.deepspeed.zeroStage);
  keys::kOptimizationsOffloadOptimizer.set(out, c.deepspeed.offloadOptimizer);
  keys::kOptimizationsOffloadParameters.set(out, c.deepspeed.offloadParameters);
  keys::kOptimizationsModel.set(out, toQString(c.model));
  keys::kOptimizationsMicroBatch.set(out, c.microBatch);
  keys::kOptimizationsGradientAccumulation.set(out, c.gradientAccumulation);
  keys::kOptimizationsSeqLength.set(out, c.seqLength);
  keys::kOptimizationsJobName.set(out, toQString(c.jobName));
  keys::kOptimizationsValidationFiles.set(out, choices.validationFiles);
  keys::kOptimizationsPreviewTab.set(out, toQString(tb::config::toString(choices.previewTab)));
}

}  // namespace tb::ui
