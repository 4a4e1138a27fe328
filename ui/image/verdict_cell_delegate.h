// Paints a matrix cell as a flat coloured tile and outlines the cell that
// matches the host the user described. Selection highlighting would hide the
// verdict colour, so the matrix shows "you are here" with an outline instead.
#pragma once

#include <QStyledItemDelegate>

namespace tb::ui {

/// Delegate for VerdictMatrixModel cells.
class VerdictCellDelegate : public QStyledItemDelegate {
  Q_OBJECT

 public:
  using QStyledItemDelegate::QStyledItemDelegate;

  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
  [[nodiscard]] QSize sizeHint(const QStyleOptionViewItem& option,
                               const QModelIndex& index) const override;
};

}  // namespace tb::ui
