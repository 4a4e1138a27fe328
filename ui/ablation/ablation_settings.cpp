// Numbers are range-checked and the model checked against the presets on the
// way in, so a hand-edited settings file cannot put the form in a state it
// cannot show. Files that have gone since are dropped by the page, not here.
#include "ui/ablation/ablation_settings.h"

#include <QSettings>

#include "tb/bench/ablation_runner.hpp"
#include "tb/model/model_config.hpp"
#include "ui/application_identity.h"
#include "ui/qt_text.h"

namespace tb::ui {
namespace {

QString key(const char* name) { return QStringLiteral("ablation/") + QString::fromLatin1(name); }

int number(const QSettings& settings, const char* name, int fallback, int low, int high) {
  bool ok = false;
  const int value = settings.value(key(name), fallback).toInt(&ok);
  return ok && value >= low && value <= high ? value : fallback;
}

}  // namespace

AblationPageState AblationSettings::load() const {
  const QSettings settings(organizationName(), applicationName());
  AblationPageState state;
  state.engineFiles = settings.value(key("engineFiles")).toStringList();
  state.clusterFiles = settings.value(key("clusterFiles")).toStringList();
  state.lastFolder = settings.value(key("lastFolder")).toString();
  state.normalised = settings.value(key("normalised"), true).toBool();
  const QString model = settings.value(key("model"), state.request.model).toString();
  if (tb::model::findPreset(toStdString(model))) state.request.model = model;
  state.request.repeats = number(settings, "repeats", 3, 1, 20);
  state.request.steps = number(settings, "steps", 20, 2, 100000);
  return state;
}

void AblationSettings::save(const AblationPageState& state) const {
  if (access_ == SettingsAccess::ReadOnly) return;
  QSettings settings(organizationName(), applicationName());
  settings.setValue(key("engineFiles"), state.engineFiles);
  settings.setValue(key("clusterFiles"), state.clusterFiles);
  settings.setValue(key("lastFolder"), state.lastFolder);
  settings.setValue(key("normalised"), state.normalised);
  settings.setValue(key("model"), state.request.model);
  settings.setValue(key("repeats"), state.request.repeats);
  settings.setValue(key("steps"), state.request.steps);
}

QString defaultBenchmarksFolder() {
  return toQString(tb::bench::benchmarksDirectory().string());
}

}  // namespace tb::ui
