// `trainbench compat --all`: the report for this host against every release,
// which start.sh runs where there is no display. It is a report, so it exits
// 0 whatever the verdicts.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

using nlohmann::json;

TEST(CliCompatReport, NoDriverHostTextListsEveryReleaseAndExitsZero) {
  const CliRun run = runCli({"compat", "--all", "--arch", "amd64"});
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("no NVIDIA driver on this machine"), std::string::npos) << run.out;
  for (const auto& tag : builtinTags()) {
    EXPECT_NE(run.out.find("\n" + tag + " "), std::string::npos) << tag << " missing:\n" << run.out;
  }
  EXPECT_NE(run.out.find("0 of 6 releases run on this host"), std::string::npos) << run.out;
}

TEST(CliCompatReport, JsonHasHostAndOneVerdictPerRelease) {
  const CliRun run = runCli({"compat", "--all", "--driver", "575.57.08", "--gpu", "NVIDIA H200",
                             "--arch", "amd64", "--json"});
  EXPECT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("host").at("source"), "command-line");
  const json& results = doc.at("results");
  ASSERT_EQ(results.size(), builtinTags().size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].at("image"), builtinTags()[i]);
    EXPECT_EQ(results[i].at("driver"), "575.57.08");
    EXPECT_EQ(results[i].at("status"), "supported") << results[i];
    EXPECT_TRUE(results[i].at("reasons").is_array());
  }
}

TEST(CliCompatReport, Arm64ReportKeepsExitZeroWithOnlyOneRunnableRelease) {
  const CliRun run = runCli({"compat", "--all", "--driver", "580.95.05", "--gpu",
                             "NVIDIA GH200 480GB", "--arch", "arm64", "--json"});
  EXPECT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  for (const auto& result : doc.at("results")) {
    const std::string expected = result.at("image") == "25.10" ? "supported" : "unsupported";
    EXPECT_EQ(result.at("status"), expected) << result.at("image");
  }
}

TEST(CliCompatReport, DetectedHostAppearsInHeaderAndJson) {
  const auto host = fakeSmiHost("nvidia-smi-8x-h100-r535.sh");
  const CliRun text = runCli({"compat", "--all", "--arch", "amd64"}, host);
  EXPECT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("535.104.05 (detected by nvidia-smi)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("8 x NVIDIA H100 80GB HBM3"), std::string::npos) << text.out;

  const CliRun run = runCli({"compat", "--all", "--arch", "amd64", "--json"}, host);
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("host").at("driver"), "535.104.05");
  EXPECT_EQ(doc.at("host").at("gpus").size(), 8U);
  for (const auto& result : doc.at("results")) {
    EXPECT_EQ(result.at("status"), "forward-compatible") << result;
  }
}

}  // namespace
}  // namespace tb::cli::test
