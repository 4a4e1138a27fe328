// What the Runs page remembers between sessions, in the "runs/" keys of the
// Studio's settings (declared in studio_settings.h). Loaded values are not
// trusted: the form applies them through its widgets, which clamp numbers
// and ignore names they do not offer.
#pragma once

#include "ui/runs/run_form.h"
#include "ui/studio_settings.h"

namespace tb::ui {

/// Reads and writes the "runs/" keys; a read-only access (screenshots)
/// never writes.
class RunSettings {
 public:
  explicit RunSettings(SettingsAccess access) : access_(access) {}

  /// The stored choices; a missing value keeps its RunFormChoices default.
  [[nodiscard]] RunFormChoices load() const;
  void save(const RunFormChoices& choices) const;

 private:
  SettingsAccess access_;
};

}  // namespace tb::ui
