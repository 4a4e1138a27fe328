// The shape is stored as one list of eight numbers rather than eight keys:
// it is written and read as a whole, and a list of the wrong length (an
// older or hand-edited file) is dropped as a whole, leaving the preset's.
#include "ui/runs/run_settings.h"

#include <QSettings>
#include <QVariantList>

#include "ui/application_identity.h"

namespace tb::ui {
namespace {

QString key(const char* name) { return QStringLiteral("runs/") + QString::fromLatin1(name); }

int number(const QSettings& settings, const char* name, int fallback) {
  bool ok = false;
  const int value = settings.value(key(name), fallback).toInt(&ok);
  return ok ? value : fallback;
}

QString text(const QSettings& settings, const char* name, const QString& fallback) {
  return settings.value(key(name), fallback).toString();
}

}  // namespace

RunFormChoices RunSettings::load() const {
  const QSettings settings(organizationName(), applicationName());
  RunFormChoices c;
  c.preset = text(settings, "preset", c.preset);
  const QVariantList shape = settings.value(key("shape")).toList();
  if (static_cast<std::size_t>(shape.size()) == c.shape.size()) {
    for (std::size_t i = 0; i < c.shape.size(); ++i) {
      bool ok = false;
      const int value = shape[static_cast<qsizetype>(i)].toInt(&ok);
      c.shape[i] = ok ? value : 0;
    }
  }
  c.steps = number(settings, "steps", c.steps);
  c.threads = number(settings, "threads", c.threads);
  c.recompute = text(settings, "recompute", c.recompute);
  c.memoryBudgetMiB = number(settings, "memoryBudgetMiB", c.memoryBudgetMiB);
  c.data = text(settings, "data", c.data);
  c.dataFile = text(settings, "dataFile", c.dataFile);
  c.device = text(settings, "device", c.device);
  c.runtime = text(settings, "runtime", c.runtime);
  c.compile = settings.value(key("compile"), c.compile).toBool();
  return c;
}

void RunSettings::save(const RunFormChoices& c) const {
  if (access_ == SettingsAccess::ReadOnly) return;
  QSettings settings(organizationName(), applicationName());
  settings.setValue(key("preset"), c.preset);
  QVariantList shape;
  for (const int value : c.shape) shape.append(value);
  settings.setValue(key("shape"), shape);
  settings.setValue(key("steps"), c.steps);
  settings.setValue(key("threads"), c.threads);
  settings.setValue(key("recompute"), c.recompute);
  settings.setValue(key("memoryBudgetMiB"), c.memoryBudgetMiB);
  settings.setValue(key("data"), c.data);
  settings.setValue(key("dataFile"), c.dataFile);
  settings.setValue(key("device"), c.device);
  settings.setValue(key("runtime"), c.runtime);
  settings.setValue(key("compile"), c.compile);
}

}  // namespace tb::ui
