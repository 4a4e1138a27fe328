// The releases of the catalog as a table model. Paired with
// ReleaseFilterProxy for sorting and filtering (qBittorrent's model + sort
// model pair); the model itself keeps catalog order and knows no filter.
#pragma once

#include <QAbstractTableModel>
#include <QString>

namespace tb::ui {

class CatalogSession;

/// One row per release: tag, CUDA, required driver, architectures, torch.
class ReleaseTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { TagColumn, CudaColumn, DriverColumn, ArchColumn, TorchColumn, ColumnCount };
  enum Role {
    /// A value that sorts naturally (numbers for versions and drivers).
    SortRole = Qt::UserRole + 1,
    /// Everything a filter may match: the row's cells plus its components.
    SearchTextRole,
    /// The release tag of the row, whatever the column.
    TagRole,
  };

  explicit ReleaseTableModel(const CatalogSession& session, QObject* parent = nullptr);

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role) const override;

  /// The row of a tag, or -1.
  [[nodiscard]] int rowOf(const QString& tag) const;

 private:
  const CatalogSession& session_;
};

}  // namespace tb::ui
