// Display text for the architectures column doubles as the accessible text
// and the fallback when no delegate is installed; the chips are drawn from
// ArchitecturesRole.
#include "ui/image/registry_tag_model.h"

namespace tb::ui {

void RegistryTagModel::setRows(std::vector<RegistryTagRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int RegistryTagModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int RegistryTagModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RegistryTagModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const RegistryTagRow& row = rows_[static_cast<std::size_t>(index.row())];
  switch (role) {
    case TagRole: return row.tag;
    case ArchitecturesRole: return row.architectures;
    case PlatformsKnownRole: return row.platformsKnown;
    case Qt::DisplayRole:
      if (index.column() == TagColumn) return row.tag;
      return row.platformsKnown ? row.architectures.join(QStringLiteral(", ")) : tr("not read");
    case Qt::ToolTipRole:
      if (index.column() == ArchitecturesColumn && !row.platformsKnown) {
        return tr("The platforms of this tag were not read; press Check this tag.");
      }
      return {};
    default: return {};
  }
}

QVariant RegistryTagModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == TagColumn ? tr("Tag") : tr("Architectures");
}

}  // namespace tb::ui
