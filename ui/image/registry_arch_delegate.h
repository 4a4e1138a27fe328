// Architecture badges ("amd64", "arm64") drawn as rounded chips: which
// architectures a tag has is the one fact a user scans the list for
// (25.10 is the first release with arm64), and chips are read at a glance
// where a comma list is not.
#pragma once

#include <QColor>
#include <QStyledItemDelegate>

namespace tb::ui {

/// Paints RegistryTagModel::ArchitecturesRole as one chip per architecture.
class RegistryArchDelegate : public QStyledItemDelegate {
  Q_OBJECT

 public:
  using QStyledItemDelegate::QStyledItemDelegate;

  /// The chip colour of an architecture; unknown ones are grey.
  [[nodiscard]] static QColor chipColor(const QString& architecture);

  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
  [[nodiscard]] QSize sizeHint(const QStyleOptionViewItem& option,
                               const QModelIndex& index) const override;
};

}  // namespace tb::ui
