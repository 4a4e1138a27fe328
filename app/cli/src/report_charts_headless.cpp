// A build without the GUI has no chart code (plotting/ needs Qt Widgets and
// QCustomPlot); its HTML reports carry the table and say why the charts are
// missing instead of silently leaving them out.
#include "report_charts.hpp"

namespace tb::cli {

ReportCharts renderReportCharts(const bench::AblationResults& /*results*/) {
  return {{},
          "charts are not available in this build (trainbench was built without the GUI, "
          "whose plotting code draws them)"};
}

}  // namespace tb::cli
