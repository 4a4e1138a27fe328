// The background (selection, alternate rows) is left to the style so the
// row looks like every other view; only the chips are painted by hand, in
// fixed colours, so amd64 and arm64 look the same under every style.
#include "ui/image/registry_arch_delegate.h"

#include <QApplication>
#include <QPainter>

#include "ui/image/registry_tag_model.h"

namespace tb::ui {
namespace {

constexpr int kChipPadding = 7;
constexpr int kChipGap = 5;

QFont chipFont(const QFont& base) {
  QFont font = base;
  font.setBold(true);
  font.setPointSizeF(base.pointSizeF() * 0.85);
  return font;
}

}  // namespace

QColor RegistryArchDelegate::chipColor(const QString& architecture) {
  if (architecture == QLatin1String("amd64")) return {0x2b, 0x6c, 0xb0};
  if (architecture == QLatin1String("arm64")) return {0x2f, 0x85, 0x5a};
  return {0x71, 0x80, 0x96};
}

void RegistryArchDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                                 const QModelIndex& index) const {
  QStyleOptionViewItem background = option;
  initStyleOption(&background, index);
  background.text.clear();
  const QWidget* widget = option.widget;
  QStyle* style = widget != nullptr ? widget->style() : QApplication::style();
  style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);

  painter->save();
  painter->setRenderHint(QPainter::Antialiasing);
  const QFont font = chipFont(option.font);
  const QFontMetrics metrics(font);
  painter->setFont(font);
  const int height = metrics.height() + 4;
  const int top = option.rect.top() + (option.rect.height() - height) / 2;
  int left = option.rect.left() + 4;

  if (!index.data(RegistryTagModel::PlatformsKnownRole).toBool()) {
    painter->setPen(option.palette.color(QPalette::PlaceholderText));
    painter->drawText(option.rect.adjusted(4, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft,
                      index.data(Qt::DisplayRole).toString());
    painter->restore();
    return;
  }
  const QStringList architectures = index.data(RegistryTagModel::ArchitecturesRole).toStringList();
  for (const QString& architecture : architectures) {
    const int width = metrics.horizontalAdvance(architecture) + 2 * kChipPadding;
    const QRectF chip(left, top, width, height);
    painter->setPen(Qt::NoPen);
    painter->setBrush(chipColor(architecture));
    painter->drawRoundedRect(chip, height / 2.0, height / 2.0);
    painter->setPen(Qt::white);
    painter->drawText(chip, Qt::AlignCenter, architecture);
    left += width + kChipGap;
  }
  painter->restore();
}

QSize RegistryArchDelegate::sizeHint(const QStyleOptionViewItem& option,
                                     const QModelIndex& index) const {
  const QFontMetrics metrics(chipFont(option.font));
  int width = 8;
  for (const QString& architecture :
       index.data(RegistryTagModel::ArchitecturesRole).toStringList()) {
    width += metrics.horizontalAdvance(architecture) + 2 * kChipPadding + kChipGap;
  }
  const QSize base = QStyledItemDelegate::sizeHint(option, index);
  return {qMax(width, base.width()), qMax(metrics.height() + 10, base.height())};
}

}  // namespace tb::ui
