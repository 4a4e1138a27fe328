// `trainbench config`: JSON document fields, the raw single-artifact output,
// --out writing files that parse, and exit code 2 for every kind of bad value.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

using nlohmann::json;

std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CliConfig, JsonHasReleaseImageConfigAndEveryArtifact) {
  const CliRun run = runCli({"config", "--image", "25.09", "--compile", "--checkpoint-opt",
                             "--gpus", "16", "--nodes", "2", "--json"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("release"), "25.09");
  EXPECT_TRUE(doc.at("image").get<std::string>().ends_with(":25.09-serverless"));
  EXPECT_EQ(doc.at("registry"), "public");
  EXPECT_EQ(doc.at("nccl_socket_ifname"), "hpn0");
  EXPECT_EQ(doc.at("config").at("gpus_per_pod"), 16);
  EXPECT_EQ(doc.at("config").at("nodes"), 2);
  EXPECT_EQ(doc.at("config").at("compiler_optimization"), true);
  EXPECT_EQ(doc.at("config").at("checkpoint_optimization"), true);
  std::vector<std::string> kinds;
  for (const auto& artifact : doc.at("artifacts")) {
    kinds.push_back(artifact.at("kind").get<std::string>());
    EXPECT_TRUE(artifact.at("path").is_null());
    EXPECT_FALSE(artifact.at("content").get<std::string>().empty());
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"env", "docker", "k8s", "deepspeed", "training-args",
                                             "launch", "slurm"}));
  const auto manifests = YAML::LoadAll(doc.at("artifacts")[2].at("content").get<std::string>());
  ASSERT_EQ(manifests.size(), 2U);
  EXPECT_EQ(manifests[1]["kind"].as<std::string>(), "Job");
}

TEST(CliConfig, SingleFormatPrintsTheArtifactAlone) {
  const CliRun run = runCli({"config", "--image", "25.04", "--format", "deepspeed", "--zero", "2"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const json doc = json::parse(run.out);  // the whole of stdout is the JSON file
  EXPECT_EQ(doc.at("zero_optimization").at("stage"), 2);
}

TEST(CliConfig, SlurmFormatPrintsTheSbatchScriptAlone) {
  const CliRun run = runCli({"config", "--image", "25.09", "--format", "slurm", "--nodes", "2",
                             "--gpus", "16", "--checkpoint-opt"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_TRUE(run.out.starts_with("#!/bin/bash\n")) << run.out;
  for (const char* line :
       {"#SBATCH --nodes=2\n", "#SBATCH --ntasks-per-node=1\n", "#SBATCH --gpus-per-node=16\n",
        "export NCCL_SOCKET_IFNAME=hpn0\n", "export CHECKPOINT_OPTIMIZATION=true\n"}) {
    EXPECT_NE(run.out.find(line), std::string::npos) << line << " missing from\n" << run.out;
  }
  EXPECT_NE(run.out.find("exec trainbench run"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("exec torchrun"), std::string::npos) << run.out;
}

TEST(CliConfig, VpcRegistryUsesTheRegionalMirror) {
  const CliRun run = runCli({"config", "--image", "25.10", "--registry", "vpc", "--format", "k8s"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const YAML::Node pod = YAML::Load(run.out);
  EXPECT_EQ(pod["spec"]["containers"][0]["image"].as<std::string>(),
            "acs-registry-vpc.cn-beijing.cr.aliyuncs.com/egslingjun/"
            "training-nv-pytorch:25.10-serverless");
}

TEST(CliConfig, OutWritesEveryArtifactAndTheyValidateClean) {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("tb-config-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  const CliRun run = runCli({"config", "--image", "25.09", "--checkpoint-opt", "--gpus", "8",
                             "--out", dir.string(), "--json"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  for (const auto& artifact : doc.at("artifacts")) {
    const std::string path = artifact.at("path").get<std::string>();
    EXPECT_EQ(readText(path), artifact.at("content").get<std::string>()) << path;
  }
  const CliRun check =
      runCli({"validate", (dir / "trainbench.env").string(), (dir / "trainbench-k8s.yaml").string(),
              (dir / "ds_config.json").string(), "--json"});
  EXPECT_EQ(check.exitCode, 0) << check.out << check.err;
  const json report = parseSingleDocument(check);
  EXPECT_EQ(report.at("summary").at("errors"), 0);
  EXPECT_EQ(report.at("summary").at("warnings"), 0);
  std::filesystem::remove_all(dir);
}

struct BadArguments {
  const char* name;
  std::vector<std::string> args;
  std::string mentions;
};

class CliConfigBadInput : public ::testing::TestWithParam<BadArguments> {};

TEST_P(CliConfigBadInput, ExitsTwoNamingTheValue) {
  std::vector<std::string> args = {"config"};
  args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
  const CliRun run = runCli(args);
  EXPECT_EQ(run.exitCode, 2) << run.out << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find(GetParam().mentions), std::string::npos) << run.err;
}

INSTANTIATE_TEST_SUITE_P(
    BadValues, CliConfigBadInput,
    ::testing::Values(
        BadArguments{"UnknownTag", {"--image", "24.01"}, "'24.01'"},
        BadArguments{"PodOfThreeGpus", {"--image", "25.09", "--gpus", "3"}, "'3'"},
        BadArguments{"GpusNotANumber", {"--image", "25.09", "--gpus", "eight"}, "'eight'"},
        BadArguments{"ZeroStageFive", {"--image", "25.09", "--zero", "5"}, "'5'"},
        BadArguments{"ZeroNodes", {"--image", "25.09", "--nodes", "0"}, "'0'"},
        BadArguments{"UnknownFormat", {"--image", "25.09", "--format", "helm"}, "'helm'"},
        BadArguments{"UnknownRegistry", {"--image", "25.09", "--registry", "s3"}, "'s3'"},
        BadArguments{"VpcRegionWithoutMirror",
                     {"--image", "25.09", "--registry", "vpc", "--region", "us-east-1"},
                     "'us-east-1'"},
        BadArguments{"MissingImage", {"--gpus", "8"}, "--image"}),
    [](const ::testing::TestParamInfo<BadArguments>& param) {
      return std::string(param.param.name);
    });

}  // namespace
}  // namespace tb::cli::test
