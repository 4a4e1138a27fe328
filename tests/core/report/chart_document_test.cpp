// The chart document crosses from trainbench-charts to trainbench report:
// it round-trips, and whatever else arrives is an error, never an exception.
#include "tb/report/chart_document.hpp"

#include <gtest/gtest.h>

namespace tb::report {
namespace {

TEST(ChartDocument, ChartsAndNoteRoundTrip) {
  ReportCharts charts;
  charts.charts.push_back({"Throughput", "image/svg+xml", "<svg>\"quoted\" ünïcode</svg>"});
  charts.charts.push_back({"Loss", "image/png", std::string("\x89PNG\0", 5)});
  charts.note = "one chart had nothing to show";
  auto back = parseChartDocument(chartDocument(charts));
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->charts.size(), 2U);
  EXPECT_EQ(back->charts[0].title, "Throughput");
  EXPECT_EQ(back->charts[0].data, charts.charts[0].data);
  EXPECT_EQ(back->charts[1].mimeType, "image/png");
  EXPECT_EQ(back->note, charts.note);
}

TEST(ChartDocument, WrongShapesAreErrorsOrLeftOut) {
  EXPECT_FALSE(parseChartDocument("").ok());
  EXPECT_FALSE(parseChartDocument("[1,2]").ok());
  EXPECT_FALSE(parseChartDocument(R"({"charts":3})").ok());
  auto odd = parseChartDocument(
      R"({"charts":[1,{"title":7,"data":"<svg/>"},{"title":"empty"}],"note":null})");
  ASSERT_TRUE(odd.ok());
  ASSERT_EQ(odd->charts.size(), 1U);
  EXPECT_EQ(odd->charts[0].title, "");
  EXPECT_EQ(odd->charts[0].mimeType, "image/svg+xml");
  EXPECT_EQ(odd->note, "");
}

}  // namespace
}  // namespace tb::report
