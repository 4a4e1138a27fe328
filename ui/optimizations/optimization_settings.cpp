// Values are checked on the way in (a hand-edited file with gpus=3 must not
// leave the form in a state the core refuses); anything out of range keeps
// the ImageConfig default.
#include "ui/optimizations/optimization_settings.h"

#include <QSettings>

#include "ui/application_identity.h"
#include "ui/qt_text.h"

namespace tb::ui {
namespace {

QString key(const char* name) {
  return QStringLiteral("optimizations/") + QString::fromLatin1(name);
}

int intIn(const QSettings& settings, const char* name, int fallback, int low, int high) {
  bool ok = false;
  const int value = settings.value(key(name), fallback).toInt(&ok);
  return ok && value >= low && value <= high ? value : fallback;
}

bool flag(const QSettings& settings, const char* name, bool fallback) {
  return settings.value(key(name), fallback).toBool();
}

QString text(const QSettings& settings, const char* name, const std::string& fallback) {
  const QString value = settings.value(key(name)).toString();
  return value.isEmpty() ? toQString(fallback) : value;
}

}  // namespace

OptimizationChoices OptimizationSettings::load() const {
  const QSettings settings(organizationName(), applicationName());
  OptimizationChoices choices;
  tb::config::ImageConfig& c = choices.config;
  c.registry = settings.value(key("registry")).toString() == QStringLiteral("vpc")
                   ? tb::config::RegistryKind::Vpc
                   : tb::config::RegistryKind::Public;
  c.region = toStdString(text(settings, "region", c.region));
  const int gpus = intIn(settings, "gpusPerPod", c.gpusPerPod, 1, 16);
  if (!tb::config::socketInterfaceFor(gpus).empty()) c.gpusPerPod = gpus;
  c.nodes = intIn(settings, "nodes", c.nodes, 1, 1024);
  c.compilerOptimization = flag(settings, "compile", c.compilerOptimization);
  c.gradientCheckpointing = flag(settings, "gradientCheckpointing", c.gradientCheckpointing);
  c.checkpointOptimization = flag(settings, "checkpointOptimization", c.checkpointOptimization);
  c.bf16 = flag(settings, "bf16", c.bf16);
  c.deepspeed.zeroStage = intIn(settings, "zeroStage", c.deepspeed.zeroStage, 0, 3);
  c.deepspeed.offloadOptimizer = flag(settings, "offloadOptimizer", false);
  c.deepspeed.offloadParameters = flag(settings, "offloadParameters", false);
  c.model = toStdString(text(settings, "model", c.model));
  c.microBatch = intIn(settings, "microBatch", c.microBatch, 1, 4096);
  c.gradientAccumulation = intIn(settings, "gradientAccumulation", c.gradientAccumulation, 1,
                                 4096);
  c.seqLength = intIn(settings, "seqLength", c.seqLength, 1, 1 << 20);
  c.jobName = toStdString(text(settings, "jobName", c.jobName));
  choices.validationFiles = settings.value(key("validationFiles")).toStringList();
  const auto tab = tb::config::parseArtifactKind(
      toStdString(settings.value(key("previewTab")).toString()));
  if (tab) choices.previewTab = *tab;
  return choices;
}

void OptimizationSettings::save(const OptimizationChoices& choices) const {
  if (access_ == SettingsAccess::ReadOnly) return;
  QSettings settings(organizationName(), applicationName());
  const tb::config::ImageConfig& c = choices.config;
  settings.setValue(key("registry"), toQString(tb::config::toString(c.registry)));
  settings.setValue(key("region"), toQString(c.region));
  settings.setValue(key("gpusPerPod"), c.gpusPerPod);
  settings.setValue(key("nodes"), c.nodes);
  settings.setValue(key("compile"), c.compilerOptimization);
  settings.setValue(key("gradientCheckpointing"), c.gradientCheckpointing);
  settings.setValue(key("checkpointOptimization"), c.checkpointOptimization);
  settings.setValue(key("bf16"), c.bf16);
  settings.setValue(key("zeroStage"), c.deepspeed.zeroStage);
  settings.setValue(key("offloadOptimizer"), c.deepspeed.offloadOptimizer);
  settings.setValue(key("offloadParameters"), c.deepspeed.offloadParameters);
  settings.setValue(key("model"), toQString(c.model));
  settings.setValue(key("microBatch"), c.microBatch);
  settings.setValue(key("gradientAccumulation"), c.gradientAccumulation);
  settings.setValue(key("seqLength"), c.seqLength);
  settings.setValue(key("jobName"), toQString(c.jobName));
  settings.setValue(key("validationFiles"), choices.validationFiles);
  settings.setValue(key("previewTab"), toQString(tb::config::toString(choices.previewTab)));
}

}  // namespace tb::ui
