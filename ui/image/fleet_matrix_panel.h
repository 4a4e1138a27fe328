// "Which releases can my fleet run?": the verdict matrix for one GPU class,
// with a class picker that follows the GPU the user entered. Clicking a cell
// asks the page to check that release with that branch's driver.
#pragma once

#include <QGroupBox>
#include <QString>

#include <optional>

#include "tb/catalog/catalog.hpp"
#include "tb/compat/gpu_class.hpp"

class QComboBox;
class QLabel;
class QTableView;

namespace tb::ui {

class CatalogSession;
class VerdictMatrixModel;

/// The matrix table, its GPU class picker and a legend.
class FleetMatrixPanel : public QGroupBox {
  Q_OBJECT

 public:
  explicit FleetMatrixPanel(const CatalogSession& session, QWidget* parent = nullptr);

  /// The class shown; changing it recomputes the matrix.
  void setGpuClass(tb::compat::GpuClass gpuClass);
  [[nodiscard]] tb::compat::GpuClass gpuClass() const;
  void setArch(tb::catalog::CpuArch arch);
  /// Outlines the cell of the release and branch the user described.
  void setHostCell(const QString& releaseTag, std::optional<int> branch);

  [[nodiscard]] VerdictMatrixModel* model() const { return model_; }

 Q_SIGNALS:
  /// A cell was clicked: check `releaseTag` with `driver` on a GPU of `gpuClass`.
  void cellChosen(const QString& releaseTag, const tb::catalog::DriverVersion& driver,
                  tb::compat::GpuClass gpuClass);

 private:
  void rebuild();
  void onCellClicked(const QModelIndex& index);

  const CatalogSession& session_;
  VerdictMatrixModel* model_ = nullptr;
  QTableView* view_ = nullptr;
  QComboBox* classCombo_ = nullptr;
  QLabel* queryLabel_ = nullptr;
  tb::catalog::CpuArch arch_ = tb::catalog::CpuArch::Amd64;
};

}  // namespace tb::ui
