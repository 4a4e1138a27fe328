// Missing values are ordered against the current sort order so they stay at
// the bottom whichever way the user sorts: an unfinished run is never "best".
#include "ui/runs/run_sort_proxy.h"

#include "ui/runs/run_table_model.h"

namespace tb::ui {

RunSortProxy::RunSortProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(RunTableModel::kSortRole);
  setFilterCaseSensitivity(Qt::CaseInsensitive);
}

bool RunSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const QVariant a = left.data(RunTableModel::kSortRole);
  const QVariant b = right.data(RunTableModel::kSortRole);
  const bool ascending = sortOrder() == Qt::AscendingOrder;
  if (!a.isValid() || !b.isValid()) {
    if (a.isValid() == b.isValid()) return false;
    // The valid one comes first in the view: "less" when ascending, "greater" when not.
    return a.isValid() == ascending;
  }
  const QPartialOrdering order = QVariant::compare(a, b);
  if (order == QPartialOrdering::Equivalent) {
    // Ties fall back to the newest run first, so equal rows do not jump around.
    return left.row() > right.row();
  }
  return order == QPartialOrdering::Less;
}

bool RunSortProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  const QRegularExpression pattern = filterRegularExpression();
  if (pattern.pattern().isEmpty()) return true;
  const auto* model = qobject_cast<const RunTableModel*>(sourceModel());
  if (model == nullptr) return true;
  for (const int column : {RunTableModel::Model, RunTableModel::State}) {
    const QString text = model->index(sourceRow, column, sourceParent).data().toString();
    if (text.contains(pattern)) return true;
  }
  const QString dir =
      model->index(sourceRow, 0, sourceParent).data(RunTableModel::kDirectoryRole).toString();
  return dir.contains(pattern);
}

}  // namespace tb::ui
