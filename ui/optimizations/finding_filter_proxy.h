// Sorting and filtering of FindingTableModel, kept out of the model so the
// model stays a plain view of the findings (qBittorrent's sort-model split).
#pragma once

#include <QSortFilterProxyModel>

#include "tb/config/validation.hpp"

namespace tb::ui {

/// Hides findings below a severity; sorts on FindingTableModel::SortRole
/// with file and line as tie-breakers, so equal severities stay grouped by
/// file in reading order.
class FindingFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit FindingFilterProxy(QObject* parent = nullptr);

  /// Info shows everything, Warning hides Info, Error shows errors only.
  void setLowestSeverity(tb::config::Severity severity);
  [[nodiscard]] tb::config::Severity lowestSeverity() const noexcept { return lowest_; }

 protected:
  [[nodiscard]] bool filterAcceptsRow(int sourceRow,
                                      const QModelIndex& sourceParent) const override;
  [[nodiscard]] bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  tb::config::Severity lowest_ = tb::config::Severity::Info;
};

}  // namespace tb::ui
