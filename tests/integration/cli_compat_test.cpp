// `trainbench compat --image`: the verdict's JSON fields and exit codes for
// each status, with every host value given on the command line.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

using nlohmann::json;

constexpr const char* kH100 = "NVIDIA H100 80GB HBM3";
constexpr const char* kRtx4090 = "NVIDIA GeForce RTX 4090";

CliRun judge(const std::string& image, const std::string& driver, const std::string& gpu,
             const std::string& arch, bool asJson = true) {
  std::vector<std::string> args{"compat", "--image", image,    "--driver", driver,
                                "--gpu",  gpu,       "--arch", arch};
  if (asJson) args.emplace_back("--json");
  return runCli(args);
}

TEST(CliCompat, SupportedDriverExitsZeroWithEveryJsonField) {
  const CliRun run = judge("25.04", "575.57.08", kH100, "amd64");
  EXPECT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("image"), "25.04");
  EXPECT_TRUE(doc.at("image_reference").get<std::string>().ends_with(":25.04-serverless"));
  EXPECT_TRUE(doc.at("cuda").is_string());
  EXPECT_EQ(doc.at("required_driver"), 570);
  EXPECT_EQ(doc.at("driver"), "575.57.08");
  EXPECT_EQ(doc.at("gpu"), kH100);
  EXPECT_EQ(doc.at("gpu_class"), "data-center");
  EXPECT_EQ(doc.at("gpu_count"), 1);
  EXPECT_EQ(doc.at("arch"), "amd64");
  EXPECT_EQ(doc.at("status"), "supported");
  EXPECT_FALSE(doc.at("reasons").empty());
  EXPECT_TRUE(doc.at("warnings").is_array());
  EXPECT_FALSE(doc.contains("upgrade_to"));
  EXPECT_EQ(doc.at("host").at("source"), "command-line");
  EXPECT_TRUE(doc.at("host").at("notes").is_array());
}

TEST(CliCompat, ForwardCompatibleDataCenterGpuExitsZeroWithEntrypointWarning) {
  const CliRun run = judge("25.04", "535.104.05", kH100, "amd64");
  EXPECT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("status"), "forward-compatible");
  EXPECT_EQ(doc.at("driver"), "535.104.05");
  EXPECT_FALSE(doc.contains("upgrade_to"));
  const std::string warnings = doc.at("warnings").dump();
  EXPECT_NE(warnings.find("entrypoint"), std::string::npos) << warnings;
}

TEST(CliCompat, ConsumerGpuOnOldDriverIsUnsupportedExitsThreeWithUpgrade) {
  const CliRun run = judge("25.04", "535.104.05", kRtx4090, "amd64");
  EXPECT_EQ(run.exitCode, 3) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("status"), "unsupported");
  EXPECT_EQ(doc.at("gpu_class"), "consumer");
  ASSERT_TRUE(doc.contains("upgrade_to")) << run.out;
  EXPECT_TRUE(doc.at("upgrade_to").get<std::string>().starts_with("570.")) << doc.at("upgrade_to");
  EXPECT_FALSE(doc.at("reasons").empty());
  EXPECT_FALSE(doc.at("next_steps").empty());
}

TEST(CliCompat, Arm64On2509IsUnsupportedAndPointsTo2510) {
  const CliRun run = judge("25.09", "580.95.05", kH100, "arm64");
  EXPECT_EQ(run.exitCode, 3) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("status"), "unsupported");
  EXPECT_EQ(doc.at("arch"), "arm64");
  EXPECT_NE(doc.at("next_steps").dump().find("25.10"), std::string::npos) << doc.at("next_steps");
}

TEST(CliCompat, Aarch64AliasOn2510IsSupported) {
  const CliRun run = judge("25.10", "580.95.05", "NVIDIA GH200 480GB", "aarch64");
  EXPECT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("arch"), "arm64");
  EXPECT_EQ(doc.at("status"), "supported");
}

TEST(CliCompat, FullServerlessImageReferenceResolvesToItsTag) {
  const CliRun run = judge(
      "egslingjun-registry.cn-wulanchabu.cr.aliyuncs.com/egslingjun/"
      "training-nv-pytorch:25.08-serverless",
      "575.57.08", kH100, "x86_64");
  EXPECT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("image"), "25.08");
  EXPECT_EQ(doc.at("arch"), "amd64");
}

TEST(CliCompat, VpcReferenceWithPlainTagResolves) {
  const CliRun run = judge(
      "acs-registry-vpc.cn-beijing.cr.aliyuncs.com/egslingjun/"
      "training-nv-pytorch:25.06",
      "575.57.08", kH100, "amd64");
  EXPECT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("image"), "25.06");
}

TEST(CliCompat, RepeatedValueOptionTakesTheLastOne) {
  const CliRun run = runCli({"compat", "--image", "25.06", "--driver", "535.104.05", "--gpu",
                             kRtx4090, "--arch", "amd64", "--driver", "575.57.08", "--json"});
  EXPECT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("driver"), "575.57.08");
  EXPECT_EQ(doc.at("status"), "supported");
}

TEST(CliCompat, TextOutputShowsStatusReasonsAndWhatToDo) {
  const CliRun run = judge("25.04", "535.104.05", kRtx4090, "amd64", /*asJson=*/false);
  EXPECT_EQ(run.exitCode, 3) << run.err;
  EXPECT_NE(run.out.find("Status:   UNSUPPORTED"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Reasons:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("What to do:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("535.104.05 (from the command line)"), std::string::npos) << run.out;
  EXPECT_TRUE(run.err.empty()) << run.err;
}

TEST(CliCompat, JsonOutputIsExactlyOneDocumentForEveryJsonCommand) {
  const std::vector<std::vector<std::string>> commands{
      {"images", "--json"},
      {"compat", "--image", "25.07", "--driver", "575.57.08", "--gpu", kH100, "--arch", "amd64",
       "--json"},
      {"compat", "--all", "--json"},
  };
  for (const auto& args : commands) {
    const CliRun run = runCli(args);
    SCOPED_TRACE(args.front() + " " + args[1]);
    EXPECT_EQ(run.exitCode, 0) << run.err;
    const json doc = parseSingleDocument(run);
    EXPECT_TRUE(doc.is_object());
    // Exactly one document, one trailing newline, nothing before it.
    ASSERT_GE(run.out.size(), 2U);
    EXPECT_EQ(run.out.front(), '{');
    EXPECT_EQ(run.out.substr(run.out.size() - 2), "}\n");
  }
}

}  // namespace
}  // namespace tb::cli::test
