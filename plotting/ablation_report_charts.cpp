// Report charts are drawn by the page's own chart classes on a fixed light
// palette, so a report made on a dark desktop still prints well and matches
// what the page shows in light mode. Each chart is a short-lived widget that
// is never shown: rendering goes straight to QSvgGenerator.
#include "plotting/ablation_report_charts.h"

#include <QApplication>
#include <QPalette>

#include "plotting/ablation_charts.h"
#include "plotting/chart_export.h"

namespace tb::plotting {
namespace {

QPalette reportPalette() {
  QPalette palette;
  palette.setColor(QPalette::Window, Qt::white);
  palette.setColor(QPalette::Base, Qt::white);
  palette.setColor(QPalette::Text, QColor(0x20, 0x20, 0x20));
  palette.setColor(QPalette::WindowText, QColor(0x20, 0x20, 0x20));
  return palette;
}

void prepare(AblationChart& chart, const tb::bench::AblationResults& results, const QSize& size) {
  chart.setPalette(reportPalette());
  chart.resize(size);
  chart.setResults(results);
}

void append(std::vector<tb::report::ReportChart>& charts, AblationChart& chart, const QSize& size,
            std::string title) {
  tb::Expected<QByteArray> svg = renderChart(chart, ChartFormat::Svg, size);
  if (svg) charts.push_back({std::move(title), "image/svg+xml", svg->toStdString()});
}

}  // namespace

tb::report::ReportCharts renderAblationCharts(const tb::bench::AblationResults& results,
                                              const QSize& size) {
  tb::report::ReportCharts drawn;
  // Widgets need a QApplication; without one there is nothing safe to draw on.
  if (qobject_cast<QApplication*>(QCoreApplication::instance()) == nullptr) {
    drawn.note = "No charts: they are drawn by widgets, and this program has no QApplication.";
    return drawn;
  }
  std::vector<tb::report::ReportChart>& charts = drawn.charts;

  // A chart with nothing to show (no loss curves in an import-only file) is
  // left out rather than embedded as an empty frame.
  AblationThroughputChart throughput;
  prepare(throughput, results, size);
  if (!throughput.bars().isEmpty()) {
    append(charts, throughput, size,
           "Throughput relative to Base (bars: median; error bars: min to max over the repeats)");
  }
  PeakMemoryChart memory;
  prepare(memory, results, size);
  if (!memory.bars().isEmpty()) append(charts, memory, size, "Peak memory per configuration");
  StepTimeChart stepTimes;
  prepare(stepTimes, results, size);
  if (!stepTimes.boxes().isEmpty()) {
    append(charts, stepTimes, size, "Step-time distribution (box: quartiles; dots: every step)");
  }
  LossCurvesChart losses;
  prepare(losses, results, size);
  if (!losses.curveNames().isEmpty()) append(charts, losses, size, "Loss curves");
  if (charts.empty()) drawn.note = "No charts: these results hold nothing to chart.";
  return drawn;
}

}  // namespace tb::plotting
