// The host the verdict is asked about: typed by the user or filled in by
// detection. It reports every edit at once (no Apply button) and remembers
// whether the values came from detection, so a later detection may refresh
// them without overwriting what the user typed.
#pragma once

#include <QGroupBox>
#include <QString>

#include <optional>

#include "tb/catalog/catalog.hpp"
#include "tb/compat/host_detection.hpp"

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace tb::ui {

class BackgroundTask;

/// What the host panel currently says, validated.
struct HostInput {
  QString driverText;
  std::optional<tb::catalog::DriverVersion> driver;  ///< set when driverText parses
  QString driverError;  ///< the parser's message when it does not; empty otherwise
  QString gpuName;
  int gpuCount = 1;
  tb::catalog::CpuArch arch = tb::catalog::CpuArch::Amd64;
};

/// Whether a detection result may replace the fields.
enum class DetectionFill {
  Always,       ///< the user pressed "Detect this host"
  UnlessTyped,  ///< automatic: keep values the user typed
};

/// Driver, GPU, GPU count and architecture, with "Detect this host".
class HostPanel : public QGroupBox {
  Q_OBJECT

 public:
  explicit HostPanel(QWidget* parent = nullptr);

  [[nodiscard]] HostInput input() const;

  void setDriverText(const QString& text);
  void setGpuName(const QString& name);
  void setGpuCount(int count);
  void setArch(tb::catalog::CpuArch arch);
  /// False once the user edited a field; restored from settings.
  [[nodiscard]] bool hostFromDetection() const noexcept { return hostFromDetection_; }
  void setHostFromDetection(bool fromDetection) { hostFromDetection_ = fromDetection; }

  /// Runs detection on a worker thread; the fields change when it ends.
  void startDetection(DetectionFill fill);
  [[nodiscard]] bool isDetecting() const;
  /// The last detection's answer, as shown under the fields.
  [[nodiscard]] QString detectionSummary() const;

 Q_SIGNALS:
  /// Any field changed, by the user or by detection.
  void inputChanged();
  void detectionStarted();
  /// Detection ended and its values (if any) are in the fields.
  void detectionFinished();

 private:
  void buildLayout();
  void onFieldEdited();
  void updateDriverFeedback();
  void applyDetection(const tb::compat::HostInfo& host);

  QLineEdit* driverEdit_ = nullptr;
  QAction* driverState_ = nullptr;
  QLabel* driverHint_ = nullptr;
  QComboBox* gpuCombo_ = nullptr;
  QSpinBox* gpuCountSpin_ = nullptr;
  QComboBox* archCombo_ = nullptr;
  QPushButton* detectButton_ = nullptr;
  QProgressBar* busy_ = nullptr;
  QLabel* detectionLabel_ = nullptr;
  BackgroundTask* detection_ = nullptr;  ///< Refuse: one detection at a time
  DetectionFill pendingFill_ = DetectionFill::UnlessTyped;
  bool hostFromDetection_ = true;
  int programmaticEdits_ = 0;  ///< >0 while the panel sets fields itself
};

}  // namespace tb::ui
