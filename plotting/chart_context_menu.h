// Every chart offers the same right-click export, so the menu, its file
// dialog and its error message live in one place instead of in each chart.
#pragma once

#include <QString>

class QCustomPlot;

namespace tb::plotting {

/// Gives `plot` a context menu with "Save as PNG/SVG/PDF…". The dialog
/// proposes `baseName` plus the suffix; a failed export is reported in a
/// message box that names the path and the reason.
void installExportMenu(QCustomPlot& plot, const QString& baseName);

}  // namespace tb::plotting
