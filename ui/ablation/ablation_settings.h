// What the Ablation page remembers between sessions, in the "ablation/" keys
// of the Studio's settings: the files it showed (so a restart, and a
// `--screenshot` run, shows the same results) and the last benchmark form.
#pragma once

#include <QString>
#include <QStringList>

#include "ui/ablation/ablation_log_import.h"
#include "ui/ablation/benchmark_process.h"
#include "ui/studio_settings.h"

namespace tb::ui {

/// The page's remembered state.
struct AblationPageState {
  QStringList engineFiles;
  QStringList clusterFiles;
  QList<LogImportRequest> logs;  ///< training logs, each with its label and GPU count
  QString lastFolder;            ///< where the file dialogs open; empty: the benchmarks folder
  bool normalised = true;
  BenchmarkRequest request;
};

/// Reads and writes the "ablation/" keys (studio_settings.h); read-only
/// access never writes.
class AblationSettings {
 public:
  explicit AblationSettings(SettingsAccess access) : access_(access) {}

  /// The stored state; values out of range keep their defaults.
  [[nodiscard]] AblationPageState load() const;
  void save(const AblationPageState& state) const;

 private:
  SettingsAccess access_;
};

/// dataDirectory()/benchmarks: where the page's benchmarks write and where
/// `trainbench benchmark` writes by default.
[[nodiscard]] QString defaultBenchmarksFolder();

}  // namespace tb::ui
