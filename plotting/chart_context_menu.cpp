// The file dialog starts in the user's pictures folder: an exported chart is
// usually pasted into a report or a ticket, rarely kept next to the data.
#include "plotting/chart_context_menu.h"

#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QStandardPaths>

#include "plotting/chart_export.h"
#include "plotting/qcustomplot_include.h"

namespace tb::plotting {
namespace {

void saveAs(QCustomPlot& plot, const QString& baseName, const QString& suffix,
            const QString& filter) {
  const QString folder = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
  const QString proposed = folder + QLatin1Char('/') + baseName + QLatin1Char('.') + suffix;
  QString path =
      QFileDialog::getSaveFileName(&plot, QCustomPlot::tr("Export chart"), proposed, filter);
  if (path.isEmpty()) return;
  if (!path.endsWith(QLatin1Char('.') + suffix, Qt::CaseInsensitive)) {
    path += QLatin1Char('.') + suffix;
  }
  const tb::Status status = exportChart(plot, path);
  if (!status) {
    QMessageBox::warning(&plot, QCustomPlot::tr("Export failed"),
                         QString::fromStdString(status.error().message));
  }
}

}  // namespace

void installExportMenu(QCustomPlot& plot, const QString& baseName) {
  plot.setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(
      &plot, &QWidget::customContextMenuRequested, &plot,
      [&plot, baseName](const QPoint& position) {
        QMenu menu(&plot);
        menu.addAction(QCustomPlot::tr("Save as PNG\u2026"), &plot, [&] {
          saveAs(plot, baseName, QStringLiteral("png"), QCustomPlot::tr("PNG image (*.png)"));
        });
        menu.addAction(QCustomPlot::tr("Save as SVG\u2026"), &plot, [&] {
          saveAs(plot, baseName, QStringLiteral("svg"), QCustomPlot::tr("SVG drawing (*.svg)"));
        });
        menu.addAction(QCustomPlot::tr("Save as PDF\u2026"), &plot, [&] {
          saveAs(plot, baseName, QStringLiteral("pdf"), QCustomPlot::tr("PDF document (*.pdf)"));
        });
        menu.exec(plot.mapToGlobal(position));
      });
}

}  // namespace tb::plotting
