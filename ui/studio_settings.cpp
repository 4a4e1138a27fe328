// A QSettings is created per read: it is cheap, thread-agnostic, and shares
// the parsed file with every other QSettings of the process. Writes go
// through a SettingsWriter, because each QSettings writes the file when it
// is destroyed. The checks ask the parsers the pages use, so what a check
// lets through is what the page can show.
#include "ui/studio_settings.h"

#include <QSettings>

#include "tb/config/image_config.hpp"
#include "tb/memory/memory_options.hpp"
#include "tb/model/model_config.hpp"
#include "ui/application_identity.h"
#include "ui/memory/memory_page_inputs.h"
#include "ui/qt_text.h"

namespace tb::ui {

namespace {

QSettings openSettings() { return QSettings(organizationName(), applicationName()); }

}  // namespace

SettingsWriter::SettingsWriter(SettingsAccess access) {
  if (access == SettingsAccess::ReadWrite) {
    settings_ = std::make_unique<QSettings>(organizationName(), applicationName());
  }
}

SettingsWriter::~SettingsWriter() = default;

void SettingsWriter::write(const char* key, const QVariant& value) {
  if (settings_) settings_->setValue(QString::fromLatin1(key), value);
}

QVariant detail::readSetting(const char* key) {
  return openSettings().value(QString::fromLatin1(key));
}

bool isModelPreset(const QString& name) { return tb::model::findPreset(toStdString(name)).ok(); }

bool isMemoryDType(const QString& name) { return tb::memory::parseDType(toStdString(name)).ok(); }

bool isMemoryProfile(const QString& name) {
  return tb::memory::parseProfile(toStdString(name)).ok();
}

bool isRecomputePolicy(const QString& text) {
  return tb::memory::parseRecompute(toStdString(text)).ok();
}

bool isEngineRuntime(const QString& name) {
  return name == QStringLiteral("tuned") || name == QStringLiteral("stock");
}

bool isMemoryCard(const QString& name) {
  if (name == customCardName()) return true;
  for (const GpuCard& card : gpuCards()) {
    if (card.name == name) return true;
  }
  return false;
}

bool isCustomCardGiB(const double& gib) { return gib > 0.0 && gib <= 4096.0; }

// The core refuses pod sizes its NCCL notes give no interface for.
bool isPodGpuCount(const int& gpus) {
  return gpus >= 1 && gpus <= 16 && !tb::config::socketInterfaceFor(gpus).empty();
}

bool isNotEmpty(const QString& text) { return !text.isEmpty(); }

StudioSettings::StudioSettings(SettingsAccess access) : access_(access) {}

QString StudioSettings::fileName() { return openSettings().fileName(); }

QByteArray StudioSettings::windowGeometry() const { return keys::kWindowGeometry.get(); }

QByteArray StudioSettings::windowState() const { return keys::kWindowState.get(); }

QString StudioSettings::lastPage() const { return keys::kWindowPage.get(); }

QVariantMap StudioSettings::splitterStates() const { return keys::kWindowSplitters.get(); }

void StudioSettings::saveWindow(const QByteArray& geometry, const QByteArray& state,
                                const QString& page, const QVariantMap& splitters) {
  SettingsWriter out(access_);
  keys::kWindowGeometry.set(out, geometry);
  keys::kWindowState.set(out, state);
  keys::kWindowPage.set(out, page);
  keys::kWindowSplitters.set(out, splitters);
}

ImagePageChoices StudioSettings::imagePageChoices() const {
  ImagePageChoices choices;
  choices.releaseTag = keys::kImageRelease.get();
  choices.driver = keys::kImageDriver.get();
  choices.hostFromDetection = keys::kImageHostFromDetection.get();
  choices.gpuName = keys::kImageGpu.get();
  choices.gpuCount = keys::kImageGpuCount.get();
  choices.arch = keys::kImageArch.get();
  return choices;
}

void StudioSettings::saveImagePageChoices(const ImagePageChoices& choices) {
  SettingsWriter out(access_);
  keys::kImageRelease.set(out, choices.releaseTag);
  keys::kImageDriver.set(out, choices.driver);
  keys::kImageHostFromDetection.set(out, choices.hostFromDetection);
  keys::kImageGpu.set(out, choices.gpuName);
  keys::kImageGpuCount.set(out, choices.gpuCount);
  keys::kImageArch.set(out, choices.arch);
}

}  // namespace tb::ui
