// What the Optimizations page remembers between sessions, in the
// "optimizations/" keys of the Studio's settings (declared in
// studio_settings.h). The page's ImageConfig round-trips through them field
// by field so a file written by an older build with a missing field falls
// back to that field's default.
#pragma once

#include <QStringList>

#include "tb/config/artifacts.hpp"
#include "tb/config/image_config.hpp"
#include "ui/studio_settings.h"

namespace tb::ui {

/// The page's last configuration and the files in its validation panel.
struct OptimizationChoices {
  tb::config::ImageConfig config;  ///< `tag` is not stored: the session owns the release
  QStringList validationFiles;     ///< absolute paths
  /// The preview tab last shown.
  tb::config::ArtifactKind previewTab = tb::config::ArtifactKind::Env;
};

/// Reads and writes the "optimizations/" keys; a read-only access
/// (screenshots) never writes.
class OptimizationSettings {
 public:
  explicit OptimizationSettings(SettingsAccess access) : access_(access) {}

  [[nodiscard]] OptimizationChoices load() const;
  void save(const OptimizationChoices& choices) const;

 private:
  SettingsAccess access_;
};

}  // namespace tb::ui
