// Drawn by hand (not through QStyle) so every style shows the same tiles:
// Fusion, Breeze and Windows would otherwise each tint the background their
// own way and the colours would stop meaning the same thing.
#include "ui/image/verdict_cell_delegate.h"

#include <QPainter>

#include "ui/image/verdict_matrix_model.h"

namespace tb::ui {

void VerdictCellDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                                const QModelIndex& index) const {
  painter->save();
  painter->setRenderHint(QPainter::Antialiasing);
  const QRectF tile = QRectF(option.rect).adjusted(1.5, 1.5, -1.5, -1.5);
  const QColor fill = index.data(Qt::BackgroundRole).value<QColor>();
  const QColor text = index.data(Qt::ForegroundRole).value<QColor>();
  painter->setPen(Qt::NoPen);
  painter->setBrush(fill);
  painter->drawRoundedRect(tile, 3.0, 3.0);

  if (option.state & QStyle::State_MouseOver) {
    painter->setPen(QPen(text, 1.0));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(tile, 3.0, 3.0);
  }
  if (index.data(VerdictMatrixModel::HostCellRole).toBool()) {
    painter->setPen(QPen(option.palette.color(QPalette::Text), 2.0));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(tile.adjusted(0.5, 0.5, -0.5, -0.5), 3.0, 3.0);
  }

  QFont font = option.font;
  font.setBold(true);
  painter->setFont(font);
  painter->setPen(text);
  painter->drawText(option.rect, Qt::AlignCenter, index.data(Qt::DisplayRole).toString());
  painter->restore();
}

QSize VerdictCellDelegate::sizeHint(const QStyleOptionViewItem& option,
                                    const QModelIndex& index) const {
  QSize size = QStyledItemDelegate::sizeHint(option, index);
  size.setHeight(qMax(size.height() + 8, option.fontMetrics.height() + 12));
  size.setWidth(qMax(size.width() + 16, 64));
  return size;
}

}  // namespace tb::ui
