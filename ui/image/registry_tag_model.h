// The tags a registry publishes, as a flat table the panel shows through a
// sorting proxy. Architectures are a list per row (drawn as chips by
// RegistryArchDelegate), not text, so the delegate and tests read them as data.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <vector>

namespace tb::ui {

/// One tag and the architectures its manifest lists.
struct RegistryTagRow {
  QString tag;
  QStringList architectures;    ///< "amd64", "arm64"; empty with platformsKnown false
  bool platformsKnown = false;  ///< false: not read (over the cap or cancelled)
};

/// Tag | Architectures, one row per tag.
class RegistryTagModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { TagColumn = 0, ArchitecturesColumn, ColumnCount };
  enum Role { ArchitecturesRole = Qt::UserRole + 1, TagRole, PlatformsKnownRole };

  using QAbstractTableModel::QAbstractTableModel;

  /// Replaces every row.
  void setRows(std::vector<RegistryTagRow> rows);
  [[nodiscard]] const std::vector<RegistryTagRow>& rows() const noexcept { return rows_; }

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role) const override;

 private:
  std::vector<RegistryTagRow> rows_;
};

}  // namespace tb::ui
