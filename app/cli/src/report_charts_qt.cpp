// The CLI draws report charts with the Studio's chart classes, which are
// widgets and need a QApplication. It is created only for HTML reports and
// only for the length of the drawing. The platform is "offscreen" unless the
// user chose one: nothing is shown, a dead or missing X display must not
// abort the report, and offscreen fonts and DPI make reports come out the
// same on a laptop and on a cluster login node.
#include <QApplication>
#include <QSize>

#include <memory>

#include "plotting/ablation_report_charts.h"
#include "report_charts.hpp"

namespace tb::cli {

report::ReportCharts renderReportCharts(const bench::AblationResults& results) {
  std::unique_ptr<QApplication> application;
  if (QCoreApplication::instance() == nullptr) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
      qputenv("QT_QPA_PLATFORM", QByteArrayLiteral("offscreen"));
    }
    // QApplication keeps references to argc and argv for its whole life.
    static int argc = 1;
    static char name[] = "trainbench";
    static char* argv[] = {name, nullptr};
    application = std::make_unique<QApplication>(argc, argv);
  }
  return plotting::renderAblationCharts(results, QSize(760, 420));
}

}  // namespace tb::cli
