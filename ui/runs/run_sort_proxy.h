// Sorting and filtering of the runs table, kept out of the model (the
// qBittorrent pairing): raw values under RunTableModel::kSortRole, rows
// without a value (no loss yet) last in either order, and a text filter that
// matches the model name, state or run id.
#pragma once

#include <QSortFilterProxyModel>

namespace tb::ui {

/// Sort/filter proxy over RunTableModel.
class RunSortProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit RunSortProxy(QObject* parent = nullptr);

 protected:
  [[nodiscard]] bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
  [[nodiscard]] bool filterAcceptsRow(int sourceRow,
                                      const QModelIndex& sourceParent) const override;
};

}  // namespace tb::ui
