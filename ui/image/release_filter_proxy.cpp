// Word-wise matching rather than one substring: "vllm 0.10" should find the
// release whose component list says "vllm 0.10.1.1", wherever the words sit.
#include "ui/image/release_filter_proxy.h"

#include "ui/image/release_table_model.h"

namespace tb::ui {

ReleaseFilterProxy::ReleaseFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(ReleaseTableModel::SortRole);
  setSortCaseSensitivity(Qt::CaseInsensitive);
}

void ReleaseFilterProxy::setFilterText(const QString& text) {
  if (text == filterText_) return;
  filterText_ = text;
  words_ = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
  invalidateFilter();
}

bool ReleaseFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  if (words_.isEmpty()) return true;
  const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
  const QString haystack = index.data(ReleaseTableModel::SearchTextRole).toString();
  for (const QString& word : words_) {
    if (!haystack.contains(word, Qt::CaseInsensitive)) return false;
  }
  return true;
}

}  // namespace tb::ui
