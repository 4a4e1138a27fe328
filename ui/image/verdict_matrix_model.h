// Releases x driver branches for one GPU class, as a table model over
// tb::compat::buildVerdictMatrix. The model adds only presentation: cell
// text, colours, tooltips, and which cell is the host the user described.
#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <optional>
#include <vector>

#include "tb/catalog/catalog.hpp"
#include "tb/compat/gpu_class.hpp"
#include "tb/compat/verdict_matrix.hpp"

namespace tb::ui {

/// One row per release, one column per driver branch of the catalog.
class VerdictMatrixModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Role {
    StatusRole = Qt::UserRole + 1,  ///< tb::compat::VerdictStatus as int
    HostCellRole,                   ///< bool: the row and branch the user described
  };

  explicit VerdictMatrixModel(QObject* parent = nullptr);

  /// Recomputes every cell for `gpuClass` on `arch`, as of `today` ("YYYY-MM-DD").
  void rebuild(const tb::catalog::Catalog& catalog, tb::compat::GpuClass gpuClass,
               tb::catalog::CpuArch arch, const std::string& today);
  /// Marks the cell of this release and driver branch; nothing to clear it.
  void setHostCell(const QString& releaseTag, std::optional<int> branch);

  [[nodiscard]] tb::compat::GpuClass gpuClass() const noexcept { return gpuClass_; }
  [[nodiscard]] QString gpuName() const { return QString::fromStdString(gpuName_); }
  [[nodiscard]] QString releaseTag(int row) const;
  [[nodiscard]] int branch(int column) const;
  /// The driver version the column's cells were computed with.
  [[nodiscard]] std::optional<tb::catalog::DriverVersion> representativeDriver(int column) const;
  [[nodiscard]] const tb::compat::CompatVerdict* verdict(const QModelIndex& index) const;

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role) const override;

 private:
  [[nodiscard]] QString cellToolTip(int row, int column) const;
  [[nodiscard]] QString branchToolTip(int column) const;
  [[nodiscard]] QString branchSubtitle(int column) const;

  tb::compat::VerdictMatrix matrix_;
  std::vector<tb::catalog::DriverBranch> branches_;  ///< one per column
  std::vector<tb::catalog::Release> releases_;       ///< one per row
  tb::compat::GpuClass gpuClass_ = tb::compat::GpuClass::DataCenter;
  std::string gpuName_;
  tb::catalog::CpuArch arch_ = tb::catalog::CpuArch::Amd64;
  QString hostTag_;
  std::optional<int> hostBranch_;
};

}  // namespace tb::ui
