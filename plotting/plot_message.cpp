#include "plotting/plot_message.h"

#include "plotting/qcustomplot_include.h"

namespace tb::plotting {

QCPItemText* addPlotMessage(QCustomPlot& plot, const QString& text, const QColor& colour) {
  auto* message = new QCPItemText(&plot);
  message->setClipToAxisRect(false);
  message->position->setType(QCPItemPosition::ptAxisRectRatio);
  message->position->setCoords(0.5, 0.5);
  message->setPositionAlignment(Qt::AlignCenter);
  message->setText(text);
  message->setColor(colour);
  return message;
}

}  // namespace tb::plotting
