// Shares are of the card, not of the total: "activations are 43 % of the
// H100" says how much recomputation could win back; "43 % of the peak" does not.
#include "ui/memory/breakdown_table_model.h"

#include <QFont>
#include <QLocale>

#include "ui/data_size.h"
#include "ui/memory/memory_view.h"

namespace tb::ui {

BreakdownTableModel::BreakdownTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void BreakdownTableModel::setBreakdown(const QVector<tb::plotting::BreakdownTerm>& terms,
                                       double capacityBytes, const QVector<QColor>& colors) {
  beginResetModel();
  terms_ = terms;
  colors_ = colors;
  capacity_ = capacityBytes;
  endResetModel();
}

double BreakdownTableModel::totalBytes() const {
  double total = 0.0;
  for (const auto& term : terms_) total += term.bytes;
  return total;
}

int BreakdownTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || terms_.isEmpty() ? 0 : static_cast<int>(terms_.size()) + 1;
}

int BreakdownTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

namespace {

/// A share of the card in at most seven characters ("143.1 %", "2793 %",
/// "> 9999 %"), so a peak far over a small card cannot widen the column past
/// the page (the value stays exact in ValueRole and in the tool tip's bytes).
QString shareText(double share) {
  const double percent = 100.0 * share;
  if (percent >= 9999.5) return QStringLiteral("> 9999 %");
  return QString::number(percent, 'f', percent >= 999.95 ? 0 : 1) + QStringLiteral(" %");
}

}  // namespace

QVariant BreakdownTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const int row = index.row();
  const bool isTotal = row == static_cast<int>(terms_.size());
  const double bytes = isTotal ? totalBytes() : terms_.at(row).bytes;
  const double share = capacity_ > 0.0 ? bytes / capacity_ : 0.0;
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case Term: return isTotal ? tr("Total at the peak") : terms_.at(row).name;
        case Size: return formatDataSize(bytes);
        case Share: return capacity_ > 0.0 ? shareText(share) : QString();
        default: return {};
      }
    case ValueRole:
      if (index.column() == Term) return isTotal ? tr("Total at the peak") : terms_.at(row).name;
      return index.column() == Size ? QVariant(bytes) : QVariant(share);
    case Qt::DecorationRole:
      if (index.column() == Term && !isTotal && row < colors_.size() && bytes > 0.0) {
        return colors_.at(row);
      }
      return {};
    case Qt::TextAlignmentRole:
      return index.column() == Term ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                    : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
      if (isTotal) {
        QFont font;
        font.setBold(true);
        return font;
      }
      return {};
    case Qt::ToolTipRole:
      return tr("%1 bytes").arg(QLocale().toString(static_cast<qulonglong>(bytes)));
    default: return {};
  }
}

QVariant BreakdownTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Term: return tr("Term");
    case Size: return tr("Size");
    case Share: return tr("Of the card");
    default: return {};
  }
}

}  // namespace tb::ui
