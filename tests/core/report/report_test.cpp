// Reports are what teams share: the numbers must be the results' numbers,
// speedups must compare like with like, and every format must be valid for
// the tool that reads it (an HTML parser, a CSV reader, a JSON parser).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tb/bench/ablation.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/common/subprocess.hpp"
#include "tb/common/text.hpp"
#include "tb/report/report.hpp"

namespace tb::report {
namespace {

using bench::AblationResults;
using bench::ConfigurationResult;
using bench::ResultSource;

ConfigurationResult configuration(bench::AblationStep step, ResultSource source, std::string model,
                                  double throughput, int failed = 0) {
  ConfigurationResult config;
  config.label = std::string(bench::label(step));
  config.source = source;
  config.model = std::move(model);
  config.gpus = source == ResultSource::Engine ? 0 : 8;
  config.throughputUnit = source == ResultSource::Engine ? "tokens/s" : "tokens/s/gpu";
  for (int r = 0; r < 3; ++r) {
    bench::RunMeasurement run;
    run.repeat = r;
    run.tokensPerS = throughput * (1.0 + 0.01 * (r - 1));
    run.stepTimeS = 1024.0 / run.tokensPerS;
    run.peakBytes = 3u << 30u;
    run.mfu = 0.21;
    run.lossFirst = 8.31;
    run.lossLast = 8.29;
    config.runs.push_back(run);
  }
  for (int f = 0; f < failed; ++f) {
    bench::RunMeasurement run;
    run.repeat = 3 + f;
    run.state = tb::runs::RunState::Oom;
    config.runs.push_back(run);
  }
  EXPECT_TRUE(bench::summarizeRuns(config).ok());
  return config;
}

AblationResults sampleResults() {
  AblationResults results;
  results.appVersion = "0.1.0";
  results.createdAt = "2026-11-29T18:45:00Z";
  results.model = "small";
  results.steps = 30;
  results.warmupSteps = 5;
  results.repeats = 3;
  results.memoryBudgetBytes = 4u << 30u;
  results.imageTag = "25.10";
  results.machine = {"Intel(R) Xeon(R) <test> CPU", 2, 2, "mkldnn", "1.13.1", "cpu"};
  double speed = 200.0;
  for (const bench::AblationStep step : bench::kAblationSteps) {
    results.configurations.push_back(configuration(step, ResultSource::Engine, "small", speed,
                                                   step == bench::AblationStep::Ac2 ? 1 : 0));
    speed *= 1.25;
  }
  // Cluster runs in another unit and another model: never divided by engine numbers.
  results.configurations.push_back(
      configuration(bench::AblationStep::CkptOpt, ResultSource::Cluster, "llama3-8b, 8k", 4700));
  results.configurations.push_back(
      configuration(bench::AblationStep::Base, ResultSource::Cluster, "llama3-8b, 8k", 3100));
  return results;
}

std::filesystem::path tempDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("tb_report_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Runs the strict HTML checker (Python's html.parser) as a child process.
Expected<ProcessResult> checkHtml(const std::filesystem::path& path) {
  ProcessOptions options;
  options.timeout = std::chrono::seconds(60);
  return runProcess(
      {"/usr/bin/python3", std::string(TB_SOURCE_DIR) + "/tests/core/report/html_check.py",
       path.string()},
      options);
}

TEST(ReportRows, SpeedupsCompareWithTheBaseOfTheSameSourceAndModel) {
  const std::vector<ReportRow> rows = reportRows(sampleResults());
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].label, "Base");
  EXPECT_EQ(rows[0].source, "engine");
  EXPECT_NEAR(rows[0].speedupOverBase, 1.0, 1e-12);
  EXPECT_EQ(rows[1].label, "Base");
  EXPECT_EQ(rows[1].source, "cluster");
  EXPECT_NEAR(rows[3].speedupOverBase, 1.25 * 1.25, 1e-9);  // AC2+CompilerOpt, engine
  EXPECT_EQ(rows[5].source, "cluster");
  EXPECT_NEAR(rows[5].speedupOverBase, 4700.0 / 3100.0, 1e-9);
  EXPECT_EQ(rows[2].failedRuns, 1);
}

TEST(ReportRows, NoBaseMeansNoSpeedup) {
  AblationResults results = sampleResults();
  results.configurations.erase(results.configurations.begin());  // the engine Base
  for (const ReportRow& row : reportRows(results)) {
    if (row.source == "engine") {
      EXPECT_EQ(row.speedupOverBase, 0.0) << row.label;
    }
  }
}

TEST(ReportFormats, ParsesTheNamesOfTheCliContract) {
  EXPECT_EQ(parseReportFormat("html"), ReportFormat::Html);
  EXPECT_EQ(parseReportFormat("md"), ReportFormat::Markdown);
  EXPECT_EQ(parseReportFormat("markdown"), ReportFormat::Markdown);
  EXPECT_EQ(parseReportFormat("csv"), ReportFormat::Csv);
  EXPECT_EQ(parseReportFormat("json"), ReportFormat::Json);
  EXPECT_FALSE(parseReportFormat("pdf").has_value());
}

TEST(CsvReport, HasTheExpectedColumnsAndOneLinePerConfiguration) {
  const std::string csv = renderReport(sampleResults(), ReportFormat::Csv);
  std::vector<std::string_view> lines = split(csv, '\n');
  ASSERT_EQ(lines.back(), "");
  lines.pop_back();
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0],
            "label,source,model,gpus,throughput_unit,throughput_median,throughput_min,"
            "throughput_max,repeats,speedup_vs_base,step_time_median_s,peak_bytes,mfu,"
            "loss_first,loss_last,failed_runs");
  EXPECT_EQ(lines[1].substr(0, 35), "Base,engine,small,0,tokens/s,200.00");
  // A model name with a comma is quoted, so the cluster rows keep 16 fields.
  EXPECT_NE(lines[2].find("\"llama3-8b, 8k\""), std::string::npos);
  EXPECT_TRUE(lines[6].ends_with(",0")) << lines[6];
}

TEST(MarkdownReport, HoldsMachineTableAndFailedRuns) {
  const std::string md = renderReport(sampleResults(), ReportFormat::Markdown);
  EXPECT_NE(md.find("# TrainBench ablation report"), std::string::npos);
  EXPECT_NE(md.find("Image: `25.10`"), std::string::npos);
  EXPECT_NE(md.find("matrix products via mkldnn"), std::string::npos);
  EXPECT_NE(md.find("| AC2+CompilerOpt+CkptOpt | engine | small | \u2014 | 390.6 tokens/s"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("1.95\u00d7"), std::string::npos);
  EXPECT_NE(md.find("AC2 (engine): 1 run(s) did not finish"), std::string::npos);
}

TEST(JsonReport, CarriesTheResultsAndTheTable) {
  const auto json = nlohmann::json::parse(renderReport(sampleResults(), ReportFormat::Json));
  EXPECT_EQ(json.at("results").at("image_tag"), "25.10");
  ASSERT_EQ(json.at("table").size(), 6u);
  EXPECT_NEAR(json.at("table")[3].at("speedup_vs_base").get<double>(), 1.5625, 1e-9);
  // The embedded results document is itself a valid results file.
  EXPECT_TRUE(bench::parseResults(json.at("results").dump(), "embedded"));
}

TEST(HtmlReport, EscapesTextAndEmbedsCharts) {
  const ReportCharts charts = {{{"Throughput <vs> Base", "image/png", "foobar"}}, {}};
  const std::string html = renderReport(sampleResults(), ReportFormat::Html, charts);
  EXPECT_NE(html.find("Intel(R) Xeon(R) &lt;test&gt; CPU"), std::string::npos);
  EXPECT_EQ(html.find("<test>"), std::string::npos);
  EXPECT_NE(html.find("src=\"data:image/png;base64,Zm9vYmFy\""), std::string::npos);
  EXPECT_NE(html.find("alt=\"Throughput &lt;vs&gt; Base\""), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
}

TEST(HtmlReport, ChartsNoteIsShownInTheChartsSection) {
  const std::string html =
      renderReport(sampleResults(), ReportFormat::Html, {{}, "No charts: a < b here."});
  const auto heading =
      html.find("<h2>Charts</h2>\n<p class=\"note\">No charts: a &lt; b here.</p>");
  ASSERT_NE(heading, std::string::npos) << html;
  EXPECT_GT(heading, html.find("<h2>Results</h2>"));
  EXPECT_EQ(html.find("<figure>"), std::string::npos);
  // Charts and a note together: the note follows the charts, in the same section.
  const std::string both = renderReport(sampleResults(), ReportFormat::Html,
                                        {{{"Loss", "image/png", "x"}}, "Two charts left out."});
  EXPECT_LT(both.find("<h2>Charts</h2>"), both.find("<figure>"));
  EXPECT_LT(both.find("<figure>"), both.find("Two charts left out."));
  // Neither: no empty section.
  EXPECT_EQ(renderReport(sampleResults(), ReportFormat::Html).find("<h2>Charts"),
            std::string::npos);
}

TEST(HtmlReport, APartialAblationIsSaidAboveTheTable) {
  AblationResults results = sampleResults();
  results.complete = false;
  results.plannedRuns = 12;
  results.completedRuns = 7;
  const std::string html = renderReport(results, ReportFormat::Html);
  const auto note =
      html.find("<p class=\"partial\"><strong>partial: 7 of 12 runs completed</strong>");
  ASSERT_NE(note, std::string::npos) << html;
  EXPECT_LT(note, html.find("<table>"));
  const std::string md = renderReport(results, ReportFormat::Markdown);
  EXPECT_NE(md.find("> **partial: 7 of 12 runs completed**"), std::string::npos) << md;
  EXPECT_LT(md.find("partial: 7"), md.find("| Configuration |"));
  const auto json = nlohmann::json::parse(renderReport(results, ReportFormat::Json));
  EXPECT_EQ(json.at("results").at("complete"), false);
  EXPECT_EQ(json.at("results").at("completed_runs"), 7);
  // A complete ablation carries no such note.
  EXPECT_EQ(renderReport(sampleResults(), ReportFormat::Html).find("class=\"partial\""),
            std::string::npos);
  EXPECT_EQ(renderReport(sampleResults(), ReportFormat::Markdown).find("partial"),
            std::string::npos);
}

TEST(HtmlReport, Base64PaddingFollowsRfc4648) {
  const auto encoded = [](std::string data) {
    const std::string html = renderReport(sampleResults(), ReportFormat::Html,
                                          {{{"c", "image/png", std::move(data)}}, {}});
    const auto start = html.find("base64,") + 7;
    return html.substr(start, html.find('"', start) - start);
  };
  EXPECT_EQ(encoded("f"), "Zg==");
  EXPECT_EQ(encoded("fo"), "Zm8=");
  EXPECT_EQ(encoded("foo"), "Zm9v");
  EXPECT_EQ(encoded(std::string("\xff\x00\x80", 3)), "/wCA");
}

TEST(HtmlReport, IsWellFormedForAnHtmlParser) {
  const auto dir = tempDir("html");
  const auto path = dir / "report.html";
  const ReportCharts charts = {
      {{"Throughput", "image/svg+xml", "<svg/>"}, {"Peak memory", "image/png", "\x89PNG"}},
      "Two charts had nothing to show."};
  AblationResults results = sampleResults();
  results.complete = false;
  results.plannedRuns = 12;
  results.completedRuns = 11;
  ASSERT_TRUE(writeReport(path, results, ReportFormat::Html, charts).ok());
  const auto checked = checkHtml(path);
  ASSERT_TRUE(checked) << checked.error().message;
  EXPECT_EQ(checked->exitCode, 0) << checked->standardOutput << checked->standardError;
  EXPECT_NE(checked->standardOutput.find("ok images=2"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(HtmlReport, TheCheckerCatchesBrokenMarkup) {
  const auto dir = tempDir("broken");
  const auto path = dir / "broken.html";
  std::string html = renderReport(sampleResults(), ReportFormat::Html);
  html.erase(html.find("</td>"), 5);
  ASSERT_TRUE(writeFileAtomically(path, html).ok());
  const auto checked = checkHtml(path);
  ASSERT_TRUE(checked) << checked.error().message;
  EXPECT_EQ(checked->exitCode, 1) << checked->standardOutput;
  std::filesystem::remove_all(dir);
}

TEST(WriteReport, WritesExactlyTheRenderedText) {
  const auto dir = tempDir("write");
  const auto path = dir / "nested" / "report.md";
  ASSERT_TRUE(writeReport(path, sampleResults(), ReportFormat::Markdown).ok());
  const auto text = readFile(path);
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, renderReport(sampleResults(), ReportFormat::Markdown));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tb::report
