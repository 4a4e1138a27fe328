// Sorting always compares tags, whichever column was clicked: the
// architecture lists are too alike to order a table by. The comparison is
// the worker's own (tagOlderThan), not QCollator: numeric collation is not
// available in the C locale, where "25.9" would sort after "25.10".
#include "ui/image/registry_tag_sort_proxy.h"

#include "ui/image/registry_lookup.h"
#include "ui/image/registry_tag_model.h"
#include "ui/qt_text.h"

namespace tb::ui {

RegistryTagSortProxy::RegistryTagSortProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(RegistryTagModel::TagRole);
}

bool RegistryTagSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const QString a = left.siblingAtColumn(RegistryTagModel::TagColumn).data(sortRole()).toString();
  const QString b = right.siblingAtColumn(RegistryTagModel::TagColumn).data(sortRole()).toString();
  return tagOlderThan(toStdString(a), toStdString(b));
}

}  // namespace tb::ui
