// Severity enumerators are ordered Error < Warning < Info, so "at least as
// severe as" is a plain integer comparison on the stored role.
#include "ui/optimizations/finding_filter_proxy.h"

#include "ui/optimizations/finding_table_model.h"

namespace tb::ui {

FindingFilterProxy::FindingFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(FindingTableModel::SortRole);
  setSortCaseSensitivity(Qt::CaseInsensitive);
}

void FindingFilterProxy::setLowestSeverity(tb::config::Severity severity) {
  if (severity == lowest_) return;
  lowest_ = severity;
  invalidateFilter();
}

bool FindingFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
  return index.data(FindingTableModel::SeverityRole).toInt() <= static_cast<int>(lowest_);
}

bool FindingFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const QPartialOrdering order = QVariant::compare(left.data(sortRole()), right.data(sortRole()));
  if (order == QPartialOrdering::Less) return true;
  if (order == QPartialOrdering::Greater) return false;
  // Ties keep findings of one file together and in line order.
  const QString leftFile = left.data(FindingTableModel::FilePathRole).toString();
  const QString rightFile = right.data(FindingTableModel::FilePathRole).toString();
  if (leftFile != rightFile) return leftFile < rightFile;
  return left.data(FindingTableModel::LineRole).toInt() <
         right.data(FindingTableModel::LineRole).toInt();
}

}  // namespace tb::ui
