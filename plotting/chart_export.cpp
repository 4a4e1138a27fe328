// Vector formats go through QCustomPlot's own painter so that lines stay
// lines in SVG and PDF; PNG is rendered at twice the size for sharp text on
// high-density screens and in reports.
#include "plotting/chart_export.h"

#include <QBuffer>
#include <QFileInfo>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include "plotting/qcustomplot_include.h"

namespace tb::plotting {

namespace {

std::string utf8(const QString& text) { return text.toStdString(); }

QSize effectiveSize(const QCustomPlot& plot, QSize size) {
  if (size.isValid() && !size.isEmpty()) return size;
  const QSize widget = plot.size();
  return widget.isEmpty() ? QSize(800, 500) : widget;
}

bool paintVector(QCustomPlot& plot, QPaintDevice& device, QSize size) {
  QCPPainter painter;
  if (!painter.begin(&device)) return false;
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  plot.toPainter(&painter, size.width(), size.height());
  return painter.end();
}

}  // namespace

std::optional<ChartFormat> chartFormatFromSuffix(const QString& suffix) {
  const QString lower = suffix.toLower();
  if (lower == QLatin1String("png")) return ChartFormat::Png;
  if (lower == QLatin1String("svg")) return ChartFormat::Svg;
  if (lower == QLatin1String("pdf")) return ChartFormat::Pdf;
  return std::nullopt;
}

tb::Expected<QByteArray> renderChart(QCustomPlot& plot, ChartFormat format, QSize size) {
  const QSize pixels = effectiveSize(plot, size);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  bool ok = false;
  switch (format) {
    case ChartFormat::Png: {
      const QPixmap pixmap = plot.toPixmap(pixels.width(), pixels.height(), 2.0);
      ok = pixmap.save(&buffer, "PNG");
      break;
    }
    case ChartFormat::Svg: {
      QSvgGenerator generator;
      generator.setOutputDevice(&buffer);
      generator.setSize(pixels);
      generator.setViewBox(QRect(QPoint(0, 0), pixels));
      ok = paintVector(plot, generator, pixels);
      break;
    }
    case ChartFormat::Pdf: {
      QPdfWriter writer(&buffer);
      writer.setPageSize(QPageSize(QSizeF(pixels), QPageSize::Point));
      writer.setPageMargins(QMarginsF(0, 0, 0, 0));
      writer.setResolution(72);
      ok = paintVector(plot, writer, pixels);
      break;
    }
  }
  if (!ok || bytes.isEmpty()) {
    return tb::Error{tb::ErrorKind::Runtime, "the chart could not be rendered"};
  }
  return bytes;
}

tb::Status exportChart(QCustomPlot& plot, const QString& path, QSize size) {
  const std::optional<ChartFormat> format = chartFormatFromSuffix(QFileInfo(path).suffix());
  if (!format) {
    return tb::Error{tb::ErrorKind::BadInput,
                     utf8(path) + ": unknown chart format (use .png, .svg or .pdf)"};
  }
  tb::Expected<QByteArray> bytes = renderChart(plot, *format, size);
  if (!bytes) return tb::Error{bytes.error().kind, utf8(path) + ": " + bytes.error().message};
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(*bytes) != bytes->size() || !file.commit()) {
    return tb::Error{tb::ErrorKind::Io, utf8(path) + ": " + utf8(file.errorString())};
  }
  return {};
}

}  // namespace tb::plotting
