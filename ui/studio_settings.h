// Typed access to the Studio's QSettings. Keys live here only, so a page
// cannot misspell one, and a read-only mode lets `--screenshot` runs restore
// the user's choices without writing anything back.
#pragma once

#include <QByteArray>
#include <QString>

namespace tb::ui {

/// Whether choices made in this window are written back.
enum class SettingsAccess { ReadWrite, ReadOnly };

/// What the Image page remembers between sessions.
struct ImagePageChoices {
  QString releaseTag;
  QString driver;
  /// True when the driver and GPU fields hold what detection found, so the
  /// next start may refresh them; false once the user typed their own.
  bool hostFromDetection = true;
  QString gpuName;
  int gpuCount = 1;
  QString arch;  ///< "amd64" or "arm64"; empty: this machine's
};

/// Reads and writes the settings of organization "TrainBench", application
/// "TrainBench Studio". Honours QStandardPaths test mode (Qt stores Linux
/// settings under GenericConfigLocation).
class StudioSettings {
 public:
  explicit StudioSettings(SettingsAccess access = SettingsAccess::ReadWrite);

  [[nodiscard]] SettingsAccess access() const noexcept { return access_; }
  /// Where the settings file is; tests check it is not the user's.
  [[nodiscard]] static QString fileName();

  [[nodiscard]] QByteArray windowGeometry() const;
  [[nodiscard]] QByteArray windowState() const;
  [[nodiscard]] QString lastPage() const;
  void saveWindow(const QByteArray& geometry, const QByteArray& state, const QString& page);

  [[nodiscard]] ImagePageChoices imagePageChoices() const;
  void saveImagePageChoices(const ImagePageChoices& choices);

 private:
  SettingsAccess access_;
};

}  // namespace tb::ui
