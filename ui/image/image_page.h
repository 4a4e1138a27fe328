// The Image page: will a training-nv-pytorch release run on this host? It
// wires the release table, the host panel, the verdict banner and the fleet
// matrix to the CatalogSession; each piece is its own widget and knows
// nothing of the others.
#pragma once

#include <QString>
#include <QWidget>

#include "tb/catalog/driver_version.hpp"
#include "tb/compat/gpu_class.hpp"

class QLineEdit;
class QSplitter;
class QTableView;

namespace tb::ui {

class CatalogSession;
class FleetMatrixPanel;
class HostPanel;
class ReleaseDetailsView;
class ReleaseFilterProxy;
class RegistryPanel;
class ReleaseTableModel;
class StudioSettings;
class VerdictBanner;

/// Releases, host, verdict and matrix on one page.
class ImagePage : public QWidget {
  Q_OBJECT

 public:
  /// `settings` supplies the last choices and receives new ones; both
  /// `session` and `settings` must outlive the page.
  ImagePage(CatalogSession& session, StudioSettings& settings, QWidget* parent = nullptr);

  /// True while host detection runs; screenshots wait for it.
  [[nodiscard]] bool isBusy() const;

 Q_SIGNALS:
  void busyChanged(bool busy);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  QWidget* buildReleaseBox();
  void restoreChoices();
  void saveChoices();
  void onReleaseChanged(const QString& tag);
  void onCatalogChanged();
  void onHostInputChanged();
  void onMatrixCellChosen(const QString& tag, const tb::catalog::DriverVersion& driver,
                          tb::compat::GpuClass gpuClass);
  void selectTagInView(const QString& tag);
  void updateVerdict();

  CatalogSession& session_;
  StudioSettings& settings_;
  HostPanel* hostPanel_ = nullptr;
  VerdictBanner* banner_ = nullptr;
  ReleaseTableModel* model_ = nullptr;
  ReleaseFilterProxy* proxy_ = nullptr;
  QLineEdit* filterEdit_ = nullptr;
  QTableView* releaseView_ = nullptr;
  ReleaseDetailsView* details_ = nullptr;
  FleetMatrixPanel* matrixPanel_ = nullptr;
  RegistryPanel* registryPanel_ = nullptr;
  QString lastGpuName_;
  bool restoring_ = false;
  bool detectedOnce_ = false;
};

}  // namespace tb::ui
