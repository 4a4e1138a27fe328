// Chart export renders into memory first and then commits the file in one
// step, so an export that fails half way (a full disk, a bad path) never
// leaves a truncated image behind.
#pragma once

#include <QSize>
#include <QString>

#include <optional>

#include "tb/common/expected.hpp"

class QCustomPlot;

namespace tb::plotting {

/// File formats a chart can be exported to.
enum class ChartFormat { Png, Svg, Pdf };

/// "png", "svg" or "pdf" (any case), or nothing.
[[nodiscard]] std::optional<ChartFormat> chartFormatFromSuffix(const QString& suffix);

/// Renders `plot` at `size` (the widget's size when empty) into `format` bytes.
[[nodiscard]] tb::Expected<QByteArray> renderChart(QCustomPlot& plot, ChartFormat format,
                                                   QSize size = {});

/// Renders and writes atomically; the format comes from the file's suffix.
/// The error names the path and the reason.
tb::Status exportChart(QCustomPlot& plot, const QString& path, QSize size = {});

}  // namespace tb::plotting
