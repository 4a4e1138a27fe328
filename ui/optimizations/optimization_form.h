// The toggles and numbers of one image configuration. Each control carries
// one line on what it does and what the image's notes say, right under it,
// because the notes' rules (compile needs bf16 and checkpointing, hpn0 for
// 16 GPUs) are exactly what users get wrong. Rules the core would refuse are
// made impossible here (a control the rule needs is locked on, with the
// reason as its tooltip) instead of being reported after the fact.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

#include "tb/config/image_config.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace tb::ui {

/// Edits every field of an ImageConfig except the release tag.
class OptimizationForm : public QWidget {
  Q_OBJECT

 public:
  explicit OptimizationForm(QWidget* parent = nullptr);

  /// The configuration shown; `tag` is left empty.
  [[nodiscard]] tb::config::ImageConfig config() const;
  /// Shows `config` without emitting configChanged().
  void setConfig(const tb::config::ImageConfig& config);
  /// The VPC regions of the current release; an empty list disables VPC.
  void setVpcRegions(const QStringList& regions);

 Q_SIGNALS:
  /// Any field changed by the user.
  void configChanged();

 private:
  QWidget* buildRegistryGroup();
  QWidget* buildParallelGroup();
  QWidget* buildOptimizationGroup();
  QWidget* buildDeepSpeedGroup();
  QWidget* buildWorkloadGroup();
  QCheckBox* addToggle(QWidget* group, const QString& name, const QString& objectName,
                       const QString& what);
  void enforceRules();
  void onEdited();

  QComboBox* registry_ = nullptr;
  QComboBox* region_ = nullptr;
  QComboBox* gpus_ = nullptr;
  QSpinBox* nodes_ = nullptr;
  QLabel* socketNote_ = nullptr;
  QCheckBox* compile_ = nullptr;
  QCheckBox* gradientCheckpointing_ = nullptr;
  QCheckBox* checkpointOpt_ = nullptr;
  QCheckBox* bf16_ = nullptr;
  QComboBox* zeroStage_ = nullptr;
  QCheckBox* offloadOptimizer_ = nullptr;
  QCheckBox* offloadParameters_ = nullptr;
  QLineEdit* model_ = nullptr;
  QSpinBox* microBatch_ = nullptr;
  QSpinBox* gradientAccumulation_ = nullptr;
  QSpinBox* seqLength_ = nullptr;
  QLineEdit* jobName_ = nullptr;
  QString vpcRegionWanted_;  ///< the configured region, kept while the release lacks it
  bool updating_ = false;
};

}  // namespace tb::ui
