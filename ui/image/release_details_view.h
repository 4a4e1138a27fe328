// The chosen release in full: where to pull it from, what it needs from the
// driver, and what is inside (components and the notes' highlights). Laid
// out to fit beside the release table at the default window size: long
// references are elided with a copy button, components sit in a grid.
#pragma once

#include <QGroupBox>
#include <QString>
#include <QStringList>

class QLabel;

namespace tb::catalog {
struct Release;
}

namespace tb::ui {

class ElidedLabel;

/// Read-only view of one release; a hint when none is chosen.
class ReleaseDetailsView : public QGroupBox {
  Q_OBJECT

 public:
  explicit ReleaseDetailsView(QWidget* parent = nullptr);

  /// Shows `release`, or a hint when it is nullptr.
  void showRelease(const tb::catalog::Release* release);

  [[nodiscard]] QString imageReference() const;
  [[nodiscard]] QString vpcPattern() const;
  /// "name version" per component, in catalog order.
  [[nodiscard]] QStringList componentLines() const { return componentLines_; }
  [[nodiscard]] QStringList highlightLines() const { return highlightLines_; }

 private:
  QWidget* copyableRow(ElidedLabel* label, const QString& what);

  ElidedLabel* image_ = nullptr;
  ElidedLabel* vpc_ = nullptr;
  QLabel* cuda_ = nullptr;
  QLabel* forwardCompat_ = nullptr;
  QLabel* mustUpgrade_ = nullptr;
  QLabel* notes_ = nullptr;
  QLabel* components_ = nullptr;
  QLabel* highlights_ = nullptr;
  QStringList componentLines_;
  QStringList highlightLines_;
};

}  // namespace tb::ui
