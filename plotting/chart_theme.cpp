// Series colours are the Okabe–Ito set (readable with colour-vision
// deficiencies), lightened for dark backgrounds where the originals are too
// dim to read against a near-black surface.
#include "plotting/chart_theme.h"

#include "plotting/qcustomplot_include.h"

namespace tb::plotting {

namespace {

const QVector<QColor>& okabeIto() {
  static const QVector<QColor> colors = {QColor(0x00, 0x72, 0xB2), QColor(0xE6, 0x9F, 0x00),
                                         QColor(0x00, 0x9E, 0x73), QColor(0xCC, 0x79, 0xA7),
                                         QColor(0x56, 0xB4, 0xE9), QColor(0xD5, 0x5E, 0x00),
                                         QColor(0xF0, 0xE4, 0x42), QColor(0x99, 0x99, 0x99)};
  return colors;
}

void styleAxis(QCPAxis& axis, const ChartTheme& theme) {
  const QPen line(theme.foreground, 1);
  axis.setBasePen(line);
  axis.setTickPen(line);
  axis.setSubTickPen(line);
  axis.setTickLabelColor(theme.foreground);
  axis.setLabelColor(theme.foreground);
  axis.grid()->setPen(QPen(theme.grid, 1, Qt::DotLine));
  axis.grid()->setSubGridPen(QPen(theme.subGrid, 1, Qt::DotLine));
  axis.grid()->setZeroLinePen(QPen(theme.grid, 1));
}

}  // namespace

ChartTheme themeForPalette(const QPalette& palette) {
  ChartTheme theme;
  theme.background = palette.color(QPalette::Base);
  theme.foreground = palette.color(QPalette::Text);
  theme.dark = theme.background.lightnessF() < 0.5;
  theme.grid = theme.dark ? QColor(255, 255, 255, 48) : QColor(0, 0, 0, 40);
  theme.subGrid = theme.dark ? QColor(255, 255, 255, 20) : QColor(0, 0, 0, 16);
  for (const QColor& color : okabeIto()) {
    theme.series.append(theme.dark ? color.lighter(125) : color);
  }
  return theme;
}

QColor seriesColor(const ChartTheme& theme, int index) {
  if (theme.series.isEmpty()) return theme.foreground;
  const auto count = static_cast<int>(theme.series.size());
  return theme.series.at(((index % count) + count) % count);
}

void applyTheme(QCustomPlot& plot, const ChartTheme& theme) {
  plot.setBackground(theme.background);
  for (QCPAxisRect* rect : plot.axisRects()) {
    rect->setBackground(theme.background);
    for (QCPAxis* axis : rect->axes()) styleAxis(*axis, theme);
  }
  if (plot.legend != nullptr) {
    plot.legend->setBrush(theme.background);
    plot.legend->setTextColor(theme.foreground);
    plot.legend->setBorderPen(QPen(theme.grid));
  }
  plot.replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace tb::plotting
