// A message in the middle of a chart's plot area: the placeholder an empty
// chart shows instead of axes that would read as data ("No results loaded",
// "Start a run to see its loss").
#pragma once

#include <QColor>
#include <QString>

class QCPItemText;
class QCustomPlot;

namespace tb::plotting {

/// Adds the message, centred on the plot's first axis rect and drawn over
/// it (not clipped to it), in `colour`; the plot owns the item.
QCPItemText* addPlotMessage(QCustomPlot& plot, const QString& text, const QColor& colour);

}  // namespace tb::plotting
