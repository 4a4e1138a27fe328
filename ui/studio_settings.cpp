// A QSettings is created per call: it is cheap, thread-agnostic, and the
// shared backing store still batches writes to disk.
#include "ui/studio_settings.h"

#include <QSettings>

#include "ui/application_identity.h"

namespace tb::ui {

namespace {

QSettings openSettings() { return QSettings(organizationName(), applicationName()); }

QString key(const char* name) { return QString::fromLatin1(name); }

}  // namespace

StudioSettings::StudioSettings(SettingsAccess access) : access_(access) {}

QString StudioSettings::fileName() { return openSettings().fileName(); }

QByteArray StudioSettings::windowGeometry() const {
  return openSettings().value(key("window/geometry")).toByteArray();
}

QByteArray StudioSettings::windowState() const {
  return openSettings().value(key("window/state")).toByteArray();
}

QString StudioSettings::lastPage() const {
  return openSettings().value(key("window/page")).toString();
}

void StudioSettings::saveWindow(const QByteArray& geometry, const QByteArray& state,
                                const QString& page) {
  if (access_ == SettingsAccess::ReadOnly) return;
  QSettings settings = openSettings();
  settings.setValue(key("window/geometry"), geometry);
  settings.setValue(key("window/state"), state);
  settings.setValue(key("window/page"), page);
}

ImagePageChoices StudioSettings::imagePageChoices() const {
  const QSettings settings = openSettings();
  ImagePageChoices choices;
  choices.releaseTag = settings.value(key("image/release")).toString();
  choices.driver = settings.value(key("image/driver")).toString();
  choices.hostFromDetection = settings.value(key("image/hostFromDetection"), true).toBool();
  choices.gpuName = settings.value(key("image/gpu")).toString();
  choices.gpuCount = qMax(1, settings.value(key("image/gpuCount"), 1).toInt());
  choices.arch = settings.value(key("image/arch")).toString();
  return choices;
}

void StudioSettings::saveImagePageChoices(const ImagePageChoices& choices) {
  if (access_ == SettingsAccess::ReadOnly) return;
  QSettings settings = openSettings();
  settings.setValue(key("image/release"), choices.releaseTag);
  settings.setValue(key("image/driver"), choices.driver);
  settings.setValue(key("image/hostFromDetection"), choices.hostFromDetection);
  settings.setValue(key("image/gpu"), choices.gpuName);
  settings.setValue(key("image/gpuCount"), choices.gpuCount);
  settings.setValue(key("image/arch"), choices.arch);
}

}  // namespace tb::ui
