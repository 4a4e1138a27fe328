// `trainbench report` end to end: the format from the suffix or --format,
// cluster files laid beside engine results, and every bad input answered
// with exit 2 naming the bad value and no file written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "cli_runner.hpp"
#include "tb/common/subprocess.hpp"

namespace tb::cli::test {
namespace {

const std::string kBenchData = std::string(TB_TEST_DATA_DIR) + "/bench/";
const std::string kResults = kBenchData + "results-fixture.json";

class CliReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tb-cli-report-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  [[nodiscard]] std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static std::string read(const std::string& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::filesystem::path dir_;
};

TEST_F(CliReport, MarkdownFromTheSuffix) {
  const CliRun run = runCli({"report", "--in", kResults, "--out", path("report.md")});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("Wrote " + path("report.md") + " (4 configurations)"), std::string::npos);
  const std::string md = read(path("report.md"));
  EXPECT_NE(md.find("| AC2+CompilerOpt+CkptOpt | engine | small"), std::string::npos) << md;
  EXPECT_NE(md.find("2.10\u00d7"), std::string::npos) << md;  // 860 / 410
}

TEST_F(CliReport, HtmlWithImportedClusterRuns) {
  const CliRun run =
      runCli({"report", "--in", kResults, "--import", kBenchData + "cluster-good.csv", "--import",
              kBenchData + "cluster-good.json", "--out", path("r.html"), "--json"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto doc = parseSingleDocument(run);
  EXPECT_EQ(doc["format"], "html");
  EXPECT_EQ(doc["configurations"], 12);
  EXPECT_EQ(doc["imported_files"], 2);
  const std::string html = read(path("r.html"));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("llama3-70b"), std::string::npos);
  EXPECT_NE(html.find("TFLOP/s/gpu"), std::string::npos);
}

TEST_F(CliReport, FormatOptionWinsOverTheSuffix) {
  const CliRun run =
      runCli({"report", "--in", kResults, "--format", "csv", "--out", path("table.txt")});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_EQ(read(path("table.txt")).rfind("label,source,model,gpus,throughput_unit", 0), 0u);
}

TEST_F(CliReport, BadInputNamesTheValueAndWritesNothing) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::string out = path("never.md");
  const std::vector<Case> cases = {
      {{"--in", kResults, "--format", "pdf", "--out", out}, "--format pdf: unknown format"},
      {{"--in", kResults, "--out", path("never.docx")}, "cannot tell the format"},
      {{"--in", path("missing.json"), "--out", out}, "missing.json"},
      {{"--in", kBenchData + "cluster-good.json", "--out", out}, "cluster-good.json: $"},
      {{"--in", kResults, "--import", kBenchData + "results-fixture.json", "--out", out},
       "results-fixture.json: $"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"report"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const CliRun run = runCli(args);
    EXPECT_EQ(run.exitCode, 2) << c.message << "\n" << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
    EXPECT_TRUE(run.out.empty()) << run.out;
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(path("never.docx")));
}

// A destination under a file is the user's path to fix (exit 2, as every
// output path of the wrong kind: docs/CLI.md), and the file stays as it was.
TEST_F(CliReport, ADestinationUnderAFileIsBadInputNamingIt) {
  const std::string blocker = path("file");
  std::ofstream(blocker) << "x";
  const CliRun run = runCli({"report", "--in", kResults, "--out", blocker + "/report.md"});
  EXPECT_EQ(run.exitCode, 2) << run.err;
  EXPECT_NE(run.err.find(blocker), std::string::npos) << run.err;
}

}  // namespace
// The binary the Studio and the benchmark start for every training run
// links no Qt: HTML reports get their charts from trainbench-charts instead.
// Debian's LibTorch 1.13 itself needs OpenCV's highgui, which loads Qt 5, so
// the whole closure is checked for the Studio's Qt 6 and QCustomPlot, and
// trainbench's own needed libraries for any Qt at all.
TEST(CliBinary, TrainbenchLinksNoQt) {
  const tb::Expected<tb::ProcessResult> needed = tb::runProcess({"readelf", "-d", TRAINBENCH_EXE});
  ASSERT_TRUE(needed.ok()) << needed.error().message;
  ASSERT_EQ(needed->exitCode, 0) << needed->standardError;
  EXPECT_NE(needed->standardOutput.find("(NEEDED)"), std::string::npos) << needed->standardOutput;
  EXPECT_EQ(needed->standardOutput.find("libQt"), std::string::npos) << needed->standardOutput;
  EXPECT_EQ(needed->standardOutput.find("qcustomplot"), std::string::npos)
      << needed->standardOutput;

  const tb::Expected<tb::ProcessResult> ldd = tb::runProcess({"ldd", TRAINBENCH_EXE});
  ASSERT_TRUE(ldd.ok()) << ldd.error().message;
  ASSERT_EQ(ldd->exitCode, 0) << ldd->standardError;
  EXPECT_NE(ldd->standardOutput.find("libc.so"), std::string::npos) << ldd->standardOutput;
  EXPECT_EQ(ldd->standardOutput.find("libQt6"), std::string::npos) << ldd->standardOutput;
  EXPECT_EQ(ldd->standardOutput.find("qcustomplot"), std::string::npos) << ldd->standardOutput;
}

}  // namespace tb::cli::test
