// The theme is read once in the constructor and again only on PaletteChange,
// not on every rebuild, because deriving it walks the palette.
#include "plotting/themed_chart.h"

#include <QToolTip>

namespace tb::plotting {

ThemedChart::ThemedChart(QWidget* parent)
    : QCustomPlot(parent), theme_(themeForPalette(palette())) {}

void ThemedChart::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  const QString text = toolTipAt(event->position());
  if (text.isEmpty()) {
    QToolTip::hideText();
  } else {
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
  }
}

void ThemedChart::changeEvent(QEvent* event) {
  QCustomPlot::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    theme_ = themeForPalette(palette());
    rebuild();
  }
}

}  // namespace tb::plotting
