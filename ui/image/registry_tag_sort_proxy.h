// Registries return tags in no useful order (registry 2.8: storage order).
// People look for the newest release first, and "25.10" must sort after
// "25.9": hence a numeric-aware proxy, newest on top by default.
#pragma once

#include <QSortFilterProxyModel>

namespace tb::ui {

/// Sorts tags by their numbers ("25.10-serverless" > "25.9-serverless").
class RegistryTagSortProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit RegistryTagSortProxy(QObject* parent = nullptr);

 protected:
  [[nodiscard]] bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

}  // namespace tb::ui
