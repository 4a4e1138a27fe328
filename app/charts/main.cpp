// trainbench-charts: draws a report's charts with the Studio's chart classes
// and hands them back to `trainbench report` as one JSON document on stdout.
// It exists so that `trainbench` itself links no Qt: the binary the Studio
// and the benchmark start for every training run loads neither Qt nor
// QCustomPlot, and only HTML reports pay for them, in this child.
//
// Input: the results document (results.json's schema) on stdin.
// Output: the chart document of tb/report/chart_document.hpp; exit 0.
// Bad input: a message on stderr, exit 2.
#include <QApplication>
#include <QSize>

#include <iostream>
#include <iterator>
#include <string>

#include "plotting/ablation_report_charts.h"
#include "tb/bench/results.hpp"
#include "tb/common/stop_signals.hpp"
#include "tb/report/chart_document.hpp"

int main(int argc, char** argv) {
  tb::reportFileSizeLimitAsWriteError();
  // Nothing is shown, and a dead or missing X display must not abort a
  // report; offscreen fonts and DPI also make reports come out the same on a
  // laptop and on a cluster login node.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    qputenv("QT_QPA_PLATFORM", QByteArrayLiteral("offscreen"));
  }
  QApplication application(argc, argv);
  const std::string input((std::istreambuf_iterator<char>(std::cin)),
                          std::istreambuf_iterator<char>());
  const auto results = tb::bench::parseResults(input, "stdin");
  if (!results) {
    std::cerr << "trainbench-charts: " << results.error().message << '\n';
    return 2;
  }
  const tb::report::ReportCharts drawn =
      tb::plotting::renderAblationCharts(*results, QSize(760, 420));
  std::cout << tb::report::chartDocument(drawn) << '\n';
  return std::cout.good() ? 0 : 1;
}
