// Host detection as the CLI uses it, simulated with fake nvidia-smi scripts
// (tests/data/cli/) through TRAINBENCH_NVIDIA_SMI, with NVML disabled and the
// /proc driver file pointed nowhere. Detection must run only for values the
// command line left out, and "no driver" must be an answer, not an error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

using nlohmann::json;

constexpr const char* kH100Host = "nvidia-smi-8x-h100-r535.sh";

// A fresh path where the fake nvidia-smi logs its calls.
std::string smiLogPath() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto path = std::filesystem::path(::testing::TempDir()) /
                    (std::string("tb-smi-") + info->name() + ".log");
  std::filesystem::remove(path);
  return path.string();
}

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CliHostDetection, DriverGpuAndCountComeFromNvidiaSmi) {
  const CliRun run =
      runCli({"compat", "--image", "25.04", "--arch", "amd64", "--json"}, fakeSmiHost(kH100Host));
  EXPECT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("driver"), "535.104.05");
  EXPECT_EQ(doc.at("gpu"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(doc.at("gpu_count"), 8);
  EXPECT_EQ(doc.at("status"), "forward-compatible");
  const json& host = doc.at("host");
  EXPECT_EQ(host.at("source"), "nvidia-smi");
  EXPECT_EQ(host.at("detected"), true);
  EXPECT_EQ(host.at("origin").at("driver"), "detected");
  EXPECT_EQ(host.at("origin").at("gpu_count"), "detected");
  EXPECT_EQ(host.at("origin").at("arch"), "command-line");
}

TEST(CliHostDetection, CommandLineValuesSkipDetection) {
  auto environment = fakeSmiHost(kH100Host);
  environment["TB_FAKE_SMI_LOG"] = smiLogPath();
  const CliRun run = runCli({"compat", "--image", "25.04", "--driver", "575.57.08", "--gpu",
                             "NVIDIA A100-SXM4-80GB", "--arch", "amd64", "--json"},
                            environment);
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_FALSE(std::filesystem::exists(environment["TB_FAKE_SMI_LOG"]))
      << "nvidia-smi ran although nothing was missing: " << readAll(environment["TB_FAKE_SMI_LOG"]);
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("host").at("source"), "command-line");
  EXPECT_EQ(doc.at("host").at("detected"), false);
}

TEST(CliHostDetection, MissingGpuIsDetectedWhileGivenDriverWins) {
  auto environment = fakeSmiHost(kH100Host);
  environment["TB_FAKE_SMI_LOG"] = smiLogPath();
  const CliRun run =
      runCli({"compat", "--image", "25.04", "--driver", "575.57.08", "--arch", "amd64", "--json"},
             environment);
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(readAll(environment["TB_FAKE_SMI_LOG"]).find("--query-gpu"), std::string::npos);
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("driver"), "575.57.08");
  EXPECT_EQ(doc.at("gpu"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(doc.at("status"), "supported");
  EXPECT_EQ(doc.at("host").at("origin").at("driver"), "command-line");
  EXPECT_EQ(doc.at("host").at("origin").at("gpu"), "detected");
}

TEST(CliHostDetection, ConsumerGpuHostIsUnsupportedBelowRequiredDriver) {
  const CliRun run = runCli({"compat", "--image", "25.06", "--arch", "amd64", "--json"},
                            fakeSmiHost("nvidia-smi-rtx4090-r570.sh"));
  EXPECT_EQ(run.exitCode, 3) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("driver"), "570.133.07");
  EXPECT_EQ(doc.at("gpu_class"), "consumer");
  EXPECT_EQ(doc.at("status"), "unsupported");
  EXPECT_TRUE(doc.contains("upgrade_to")) << run.out;
}

TEST(CliHostDetection, MixedHostIsJudgedForItsConsumerGpu) {
  const CliRun run = runCli({"compat", "--image", "25.04", "--arch", "amd64", "--json"},
                            fakeSmiHost("nvidia-smi-mixed-a100-rtx4090-r535.sh"));
  EXPECT_EQ(run.exitCode, 3) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("gpu"), "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(doc.at("gpu_count"), 2);
  EXPECT_EQ(doc.at("status"), "unsupported");
  EXPECT_NE(doc.at("host").at("notes").dump().find("different GPUs"), std::string::npos)
      << doc.at("host");
}

TEST(CliHostDetection, HostWithoutDriverIsUnsupportedWithNullDriver) {
  const CliRun run = runCli({"compat", "--image", "25.04", "--arch", "amd64", "--json"});
  EXPECT_EQ(run.exitCode, 3) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_TRUE(doc.at("driver").is_null());
  EXPECT_TRUE(doc.at("gpu").is_null());
  EXPECT_EQ(doc.at("status"), "unsupported");
  EXPECT_EQ(doc.at("host").at("origin").at("driver"), "not-detected");
  EXPECT_NE(doc.at("host").at("summary").get<std::string>().find("no NVIDIA driver"),
            std::string::npos);
}

TEST(CliHostDetection, HostWithoutDriverTextSaysSo) {
  const CliRun run = runCli({"compat", "--image", "25.04", "--arch", "amd64"});
  EXPECT_EQ(run.exitCode, 3) << run.err;
  EXPECT_NE(run.out.find("no NVIDIA driver on this machine"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Install an NVIDIA driver"), std::string::npos) << run.out;
}

TEST(CliHostDetection, FailingNvidiaSmiMeansNoDriverWithNotes) {
  const CliRun run = runCli({"compat", "--image", "25.10", "--arch", "arm64", "--json"},
                            fakeSmiHost("nvidia-smi-no-driver.sh"));
  EXPECT_EQ(run.exitCode, 3) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_TRUE(doc.at("driver").is_null());
  EXPECT_FALSE(doc.at("host").at("notes").empty()) << doc.at("host");
}

}  // namespace
}  // namespace tb::cli::test
