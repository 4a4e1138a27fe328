// One palette for every chart, derived from the widget palette, so that charts
// follow the system's light or dark theme instead of QCustomPlot's fixed white.
#pragma once

#include <QColor>
#include <QPalette>
#include <QVector>

class QCustomPlot;

namespace tb::plotting {

/// Colours a chart is drawn with.
struct ChartTheme {
  QColor background;
  QColor foreground;  ///< axes, tick labels, titles
  QColor grid;
  QColor subGrid;
  QVector<QColor> series;  ///< categorical colours, distinguishable in both themes
  bool dark = false;
};

/// The theme matching `palette` (dark when its window colour is dark).
[[nodiscard]] ChartTheme themeForPalette(const QPalette& palette);

/// The colour of series `index`, cycling through the theme's series colours.
[[nodiscard]] QColor seriesColor(const ChartTheme& theme, int index);

/// Applies the theme to the plot's background, axes, grids and legend. Call it
/// again on QEvent::PaletteChange so a theme switch reaches open charts.
void applyTheme(QCustomPlot& plot, const ChartTheme& theme);

}  // namespace tb::plotting
