// The generated files, one highlighted read-only tab each, with copy and
// save-all. The preview keeps the last good set of artifacts while the form
// holds something the core refuses, and says why above the tabs, so a
// half-typed value never blanks what the user was reading.
#pragma once

#include <QString>
#include <QWidget>

#include <vector>

#include "tb/common/expected.hpp"
#include "tb/config/artifacts.hpp"

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;

namespace tb::ui {

/// Tabs of env, docker, k8s, deepspeed, training-args and launch.
class ArtifactPreview : public QWidget {
  Q_OBJECT

 public:
  explicit ArtifactPreview(QWidget* parent = nullptr);

  /// Shows a fresh set (one per kind, in allArtifactKinds() order).
  void setArtifacts(std::vector<tb::config::Artifact> artifacts);
  /// Keeps the last set and shows why no new one could be made.
  void setProblem(const QString& message);
  [[nodiscard]] bool hasProblem() const noexcept { return hasProblem_; }
  [[nodiscard]] const std::vector<tb::config::Artifact>& artifacts() const { return artifacts_; }

  /// The text shown in the tab of `kind`.
  [[nodiscard]] QString text(tb::config::ArtifactKind kind) const;
  /// Shows the tab of `kind`.
  void showKind(tb::config::ArtifactKind kind);
  /// The kind of the tab shown.
  [[nodiscard]] tb::config::ArtifactKind currentKind() const;

  /// Copies the current tab's file to the clipboard.
  void copyCurrent();
  /// Writes every file into `directory` (created if missing), each one
  /// atomically; scripts are made executable. The error names the file.
  [[nodiscard]] tb::Status saveAllTo(const QString& directory) const;

 Q_SIGNALS:
  /// One line for the page's status line.
  void statusMessage(const QString& text, bool isError);
  /// The user (or showKind) switched to another tab.
  void currentKindChanged(tb::config::ArtifactKind kind);

 private:
  void chooseFolderAndSave();

  QTabWidget* tabs_ = nullptr;
  QLabel* problem_ = nullptr;
  QPushButton* copy_ = nullptr;
  QPushButton* save_ = nullptr;
  std::vector<QPlainTextEdit*> editors_;  ///< one per kind, allArtifactKinds() order
  std::vector<tb::config::Artifact> artifacts_;
  bool hasProblem_ = false;
};

}  // namespace tb::ui
