// A build without the GUI has no chart code (plotting/ needs Qt Widgets and
// QCustomPlot); its HTML reports carry the table and say why the charts are
// missing instead of silently leaving them out.
#include "report_charts.hpp"

namespace tb::cli {

report::ReportCharts renderReportCharts(const bench::AblationResults& /*results*/) {
  return {{},
          "No charts: they are not available in this build (trainbench was built without the "
          "GUI, whose plotting code draws them)."};
}

}  // namespace tb::cli
