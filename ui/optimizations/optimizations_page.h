// The Optimizations page: how to switch the image's optimizations on
// correctly. The form on the left is the one ImageConfig of record; every
// change regenerates the files on the right through core/config and checks
// them with the same validator that checks the user's own files below.
#pragma once

#include <QString>
#include <QWidget>

#include "tb/config/image_config.hpp"
#include "ui/optimizations/optimization_settings.h"

class QLabel;

namespace tb::ui {

class ArtifactPreview;
class CatalogSession;
class OptimizationForm;
class StudioSettings;
class ValidationPanel;

/// Form, generated-file previews and validation panel on one page.
class OptimizationsPage : public QWidget {
  Q_OBJECT

 public:
  /// `session` supplies the release chosen on the Image page; `settings`
  /// says whether choices may be written back. Both must outlive the page.
  OptimizationsPage(CatalogSession& session, const StudioSettings& settings,
                    QWidget* parent = nullptr);

  /// The configuration the previews show (release tag included).
  [[nodiscard]] tb::config::ImageConfig currentConfig() const;
  /// The release in use: the session's choice, else the newest one.
  [[nodiscard]] QString releaseTag() const { return releaseTag_; }
  /// True while validation runs; screenshots and tests wait for it.
  [[nodiscard]] bool isBusy() const;
  /// Adds files to the validator (as dropping them on it does).
  void validateFiles(const QStringList& paths);

 public Q_SLOTS:
  /// The Memory page's advice: `recompute` true turns gradient checkpointing
  /// and checkpoint optimization on; false turns both off (checkpointing
  /// stays on while the compiler optimization needs it). Says so in the
  /// status line.
  void applyCheckpointRecommendation(bool recompute);

 Q_SIGNALS:
  void busyChanged(bool busy);

 private:
  QWidget* buildHeader();
  void onReleaseChanged();
  void regenerate();
  void checkGenerated(const tb::config::ResolvedConfig& resolved);
  void showStatus(const QString& text, bool isError);
  void saveChoices() const;

  CatalogSession& session_;
  OptimizationSettings settings_;
  OptimizationForm* form_ = nullptr;
  ArtifactPreview* preview_ = nullptr;
  ValidationPanel* validation_ = nullptr;
  QLabel* releaseLabel_ = nullptr;
  QLabel* checks_ = nullptr;
  QLabel* status_ = nullptr;
  QString releaseTag_;
};

}  // namespace tb::ui
