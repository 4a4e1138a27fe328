// The theme is read once in the constructor and again only on PaletteChange,
// not on every rebuild, because deriving it walks the palette.
#include "plotting/themed_chart.h"

#include <QToolTip>

#include <algorithm>

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

void ThemedChart::setLegendColumnLimit(int maxColumns) {
  legendColumnLimit_ = std::max(maxColumns, 1);
  fitLegend();
}

void ThemedChart::resizeEvent(QResizeEvent* event) {
  fitLegend();
  QCustomPlot::resizeEvent(event);
}

void ThemedChart::fitLegend() {
  if (legendColumnLimit_ == 0) return;
  // itemCount() counts the grid's cells, and a wrapped grid has empty ones.
  int entries = 0;
  int widest = 1;
  for (int index = 0; index < legend->itemCount(); ++index) {
    if (const QCPAbstractLegendItem* entry = legend->item(index)) {
      ++entries;
      widest = std::max(widest, entry->minimumOuterSizeHint().width());
    }
  }
  if (entries == 0) return;
  const QMargins margins = legend->margins();
  const int room = width() - margins.left() - margins.right();
  const int spacing = legend->columnSpacing();
  const int columns =
      std::clamp((room + spacing) / (widest + spacing), 1, std::min(legendColumnLimit_, entries));
  if (columns == legend->wrap()) return;
  legend->setWrap(columns);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // re-flows the current entries
  updateGeometry();  // the legend's rows are part of the minimum height
}

void ThemedChart::changeEvent(QEvent* event) {
  QCustomPlot::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    theme_ = themeForPalette(palette());
    rebuild();
  }
}

}  // namespace tb::plotting
