// The widest a key may be is the plot's own width less the legend's margins,
// so a single key always fits on a row of its own; the text is elided to the
// rectangle the legend's layout actually gave the key.
#include "plotting/legend_key_item.h"

#include <QFontMetrics>

#include <algorithm>

namespace tb::plotting {
namespace {

constexpr int kNarrowestText = 60;  // pixels: a few letters and the ellipsis

}  // namespace

LegendKeyItem::LegendKeyItem(QCPLegend* legend, const QPen& pen, const QString& text,
                             const QString& toolTip)
    : QCPAbstractLegendItem(legend), pen_(pen), text_(text), toolTip_(toolTip) {
  // Keys explain the chart; clicking one selects nothing.
  setSelectable(false);
}

int LegendKeyItem::maximumTextWidth() const {
  const QMargins around = mParentLegend->margins() + mMargins;
  const int spare = mParentPlot->viewport().width() - around.left() - around.right() -
                    mParentLegend->iconSize().width() - mParentLegend->iconTextPadding() - 8;
  return std::max(kNarrowestText, spare);
}

QString LegendKeyItem::shownText() const {
  const int room = mRect.width() > 0 ? mRect.width() - mParentLegend->iconSize().width() -
                                           mParentLegend->iconTextPadding()
                                     : maximumTextWidth();
  return QFontMetrics(mFont).elidedText(text_, Qt::ElideMiddle, std::min(room, maximumTextWidth()));
}

void LegendKeyItem::draw(QCPPainter* painter) {
  painter->setFont(mFont);
  painter->setPen(QPen(mTextColor));
  const QSize iconSize = mParentLegend->iconSize();
  const QString text = shownText();
  const QRect textRect =
      painter->fontMetrics().boundingRect(0, 0, 0, iconSize.height(), Qt::TextDontClip, text);
  const int textHeight = std::max(textRect.height(), iconSize.height());
  painter->drawText(mRect.x() + iconSize.width() + mParentLegend->iconTextPadding(), mRect.y(),
                    textRect.width(), textHeight, Qt::TextDontClip, text);
  const QRect iconRect(mRect.topLeft(), iconSize);
  painter->save();
  painter->setClipRect(iconRect, Qt::IntersectClip);
  painter->setPen(pen_);
  const double middle = iconRect.center().y() + 1.0;
  painter->drawLine(QLineF(iconRect.left(), middle, iconRect.right() + 1.0, middle));
  painter->restore();
}

QSize LegendKeyItem::minimumOuterSizeHint() const {
  const QFontMetrics metrics(mFont);
  const QSize iconSize = mParentLegend->iconSize();
  const int textWidth = std::min(metrics.horizontalAdvance(text_) + 2, maximumTextWidth());
  QSize size(iconSize.width() + mParentLegend->iconTextPadding() + textWidth,
             std::max(metrics.height(), iconSize.height()));
  size.rwidth() += mMargins.left() + mMargins.right();
  size.rheight() += mMargins.top() + mMargins.bottom();
  return size;
}

}  // namespace tb::plotting
