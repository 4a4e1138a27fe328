// What the Memory page remembers between sessions, in the "memory/" keys of
// the Studio's settings (declared in studio_settings.h).
#pragma once

#include "ui/memory/memory_page_inputs.h"
#include "ui/studio_settings.h"

namespace tb::ui {

/// Reads and writes the "memory/" keys; a read-only access (screenshots)
/// never writes.
class MemorySettings {
 public:
  explicit MemorySettings(SettingsAccess access) : access_(access) {}

  /// The stored inputs; a missing or out-of-range value keeps its default.
  [[nodiscard]] MemoryPageInputs load() const;
  void save(const MemoryPageInputs& inputs) const;

 private:
  SettingsAccess access_;
};

}  // namespace tb::ui
