// Every artifact, generated for 1, 8 and 16 GPUs per pod, one and three
// nodes, and each optimization on and off, is parsed back (yaml-cpp,
// nlohmann/json, a shell-word reader) and its fields are asserted.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <tuple>

#include "artifact_parsing.hpp"
#include "tb/catalog/catalog_loader.hpp"
#include "tb/config/artifacts.hpp"

namespace tb::config {
namespace {

using test::flagValue;
using test::parseShellCommands;

struct MatrixCase {
  int gpus;
  int nodes;
  bool compile;
  bool checkpointOpt;
};

class ArtifactMatrix : public ::testing::TestWithParam<std::tuple<int, int, bool, bool>> {
 protected:
  void SetUp() override {
    const auto [gpus, nodes, compile, checkpointOpt] = GetParam();
    param_ = {gpus, nodes, compile, checkpointOpt};
    ImageConfig config;
    config.tag = "25.09";
    config.gpusPerPod = gpus;
    config.nodes = nodes;
    config.compilerOptimization = compile;
    config.checkpointOptimization = checkpointOpt;
    config.microBatch = 2;
    config.gradientAccumulation = 4;
    auto resolved = resolveConfig(config, catalog::builtinCatalog());
    ASSERT_TRUE(resolved.ok()) << resolved.error().message;
    resolved_ = *resolved;
  }

  [[nodiscard]] std::string expectedInterface() const {
    return param_.gpus == 16 ? "hpn0" : "eth0";
  }

  MatrixCase param_{};
  ResolvedConfig resolved_;
};

TEST_P(ArtifactMatrix, EnvFileSetsInterfaceAndCheckpointOptimization) {
  const Artifact artifact = envFileArtifact(resolved_);
  EXPECT_EQ(artifact.fileName, "trainbench.env");
  const auto vars = test::parseEnvFile(artifact.content);
  EXPECT_EQ(vars.at("NCCL_SOCKET_IFNAME"), expectedInterface());
  if (param_.checkpointOpt) {
    EXPECT_EQ(vars.at("CHECKPOINT_OPTIMIZATION"), "true");
  } else {
    EXPECT_FALSE(vars.contains("CHECKPOINT_OPTIMIZATION"));
  }
}

TEST_P(ArtifactMatrix, DockerRunSelectsGpusPassesEnvAndKeepsEntrypoint) {
  const auto commands = parseShellCommands(dockerRunArtifact(resolved_).content);
  ASSERT_EQ(commands.size(), 1U);
  const auto& words = commands.front();
  ASSERT_GE(words.size(), 4U);
  EXPECT_EQ(words[0], "docker");
  EXPECT_EQ(words[1], "run");
  const auto gpus = std::find(words.begin(), words.end(), "--gpus");
  ASSERT_NE(gpus, words.end());
  EXPECT_EQ(*(gpus + 1), param_.gpus == 16 ? "all"
                         : param_.gpus == 8 ? "\"device=0,1,2,3,4,5,6,7\""
                                            : "\"device=0\"");
  const auto has = [&words](const std::string& word) {
    return std::find(words.begin(), words.end(), word) != words.end();
  };
  EXPECT_TRUE(has("NCCL_SOCKET_IFNAME=" + expectedInterface()));
  EXPECT_EQ(has("CHECKPOINT_OPTIMIZATION=true"), param_.checkpointOpt);
  EXPECT_FALSE(has("--entrypoint"));
  const auto image = std::find(words.begin(), words.end(), resolved_.imageReference);
  ASSERT_NE(image, words.end());
  ASSERT_NE(image + 1, words.end());
  EXPECT_EQ(*(image + 1), "torchrun");
  EXPECT_EQ(flagValue(words, "--nproc_per_node"), std::to_string(param_.gpus));
  EXPECT_EQ(flagValue(words, "--nnodes"), param_.nodes > 1 ? "3" : "");
  EXPECT_EQ(flagValue(words, "--node_rank"), param_.nodes > 1 ? "${NODE_RANK}" : "");
}

std::map<std::string, YAML::Node> envByName(const YAML::Node& container) {
  std::map<std::string, YAML::Node> env;
  const YAML::Node list = container["env"];
  for (std::size_t i = 0; i < list.size(); ++i) env[list[i]["name"].as<std::string>()] = list[i];
  return env;
}

TEST_P(ArtifactMatrix, KubernetesManifestIsPodOrIndexedJobWithGpusAndArgs) {
  const auto documents = YAML::LoadAll(kubernetesArtifact(resolved_).content);
  YAML::Node podSpec;
  if (param_.nodes == 1) {
    ASSERT_EQ(documents.size(), 1U);
    EXPECT_EQ(documents[0]["kind"].as<std::string>(), "Pod");
    EXPECT_EQ(documents[0]["apiVersion"].as<std::string>(), "v1");
    podSpec = documents[0]["spec"];
  } else {
    ASSERT_EQ(documents.size(), 2U);
    EXPECT_EQ(documents[0]["kind"].as<std::string>(), "Service");
    EXPECT_EQ(documents[0]["spec"]["clusterIP"].as<std::string>(), "None");
    const YAML::Node job = documents[1];
    EXPECT_EQ(job["kind"].as<std::string>(), "Job");
    EXPECT_EQ(job["apiVersion"].as<std::string>(), "batch/v1");
    EXPECT_EQ(job["spec"]["completionMode"].as<std::string>(), "Indexed");
    EXPECT_EQ(job["spec"]["completions"].as<int>(), 3);
    EXPECT_EQ(job["spec"]["parallelism"].as<int>(), 3);
    podSpec = job["spec"]["template"]["spec"];
    EXPECT_EQ(podSpec["subdomain"].as<std::string>(),
              documents[0]["metadata"]["name"].as<std::string>());
  }
  EXPECT_EQ(podSpec["restartPolicy"].as<std::string>(), "Never");
  const YAML::Node container = podSpec["containers"][0];
  EXPECT_EQ(container["image"].as<std::string>(), resolved_.imageReference);
  EXPECT_FALSE(container["command"]) << "command: would replace the image's entrypoint";
  const auto args = container["args"].as<std::vector<std::string>>();
  ASSERT_FALSE(args.empty());
  EXPECT_EQ(args[0], "torchrun");
  EXPECT_EQ(flagValue(args, "--nproc_per_node"), std::to_string(param_.gpus));
  EXPECT_EQ(flagValue(args, "--node_rank"), param_.nodes > 1 ? "$(NODE_RANK)" : "");
  EXPECT_EQ(container["resources"]["limits"]["nvidia.com/gpu"].as<int>(), param_.gpus);
  EXPECT_EQ(container["resources"]["requests"]["nvidia.com/gpu"].as<int>(), param_.gpus);
  const auto env = envByName(container);
  EXPECT_EQ(env.at("NCCL_SOCKET_IFNAME")["value"].as<std::string>(), expectedInterface());
  ASSERT_EQ(env.contains("CHECKPOINT_OPTIMIZATION"), param_.checkpointOpt);
  if (param_.checkpointOpt) {
    const YAML::Node value = env.at("CHECKPOINT_OPTIMIZATION")["value"];
    EXPECT_EQ(value.as<std::string>(), "true");
    EXPECT_EQ(value.Tag(), "!") << "an unquoted true is a YAML boolean; Kubernetes rejects it";
  }
  if (param_.nodes > 1) {
    EXPECT_EQ(env.at("NODE_RANK")["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>(),
              "metadata.annotations['batch.kubernetes.io/job-completion-index']");
    EXPECT_EQ(flagValue(args, "--master_addr"), "$(MASTER_ADDR)");
  }
}

TEST_P(ArtifactMatrix, DeepSpeedJsonBatchArithmeticAndZeroThreePrefetch) {
  const auto document = nlohmann::json::parse(deepSpeedArtifact(resolved_).content);
  EXPECT_EQ(document.at("train_micro_batch_size_per_gpu"), 2);
  EXPECT_EQ(document.at("gradient_accumulation_steps"), 4);
  EXPECT_EQ(document.at("train_batch_size"), 2 * 4 * param_.gpus * param_.nodes);
  EXPECT_EQ(document.at("bf16").at("enabled"), true);
  const auto& zero = document.at("zero_optimization");
  EXPECT_EQ(zero.at("stage"), 3);
  EXPECT_EQ(zero.at("stage3_prefetch_bucket_size"), "auto");
}

TEST_P(ArtifactMatrix, TrainingArgumentsFollowTheCompilerOptimization) {
  const auto kwargs = test::parsePythonKwargs(trainingArgsArtifact(resolved_).content);
  EXPECT_EQ(kwargs.at("torch_compile"), param_.compile ? "True" : "False");
  EXPECT_EQ(kwargs.at("bf16"), "True");
  EXPECT_EQ(kwargs.at("gradient_checkpointing"), "True");
  EXPECT_EQ(kwargs.at("per_device_train_batch_size"), "2");
  EXPECT_EQ(kwargs.at("gradient_accumulation_steps"), "4");
  EXPECT_EQ(kwargs.at("deepspeed"), "\"ds_config.json\"");
}

TEST_P(ArtifactMatrix, LaunchScriptHasBenchmarkAndTorchrun) {
  const auto commands = parseShellCommands(launchArtifact(resolved_).content);
  ASSERT_EQ(commands.size(), 3U);  // set -eu, benchmark, torchrun
  EXPECT_EQ(commands[1][0], "trainbench");
  EXPECT_EQ(commands[1][1], "benchmark");
  // The flags of `trainbench benchmark` (the CLI test runs this line with --dry-run).
  const auto value = [&commands](const std::string& flag) {
    const auto found = std::find(commands[1].begin(), commands[1].end(), flag);
    return found == commands[1].end() || found + 1 == commands[1].end() ? "" : *(found + 1);
  };
  EXPECT_EQ(value("--model"), "llama3-8b");
  EXPECT_EQ(value("--batch"), "2");
  EXPECT_EQ(value("--seq"), "4096");
  EXPECT_EQ(value("--device"), "cuda");
  EXPECT_NE(std::find(commands[1].begin(), commands[1].end(), "--ablation"), commands[1].end());
  EXPECT_EQ(commands[2][0], "torchrun");
  EXPECT_EQ(flagValue(commands[2], "--nproc_per_node"), std::to_string(param_.gpus));
  EXPECT_EQ(flagValue(commands[2], "--nnodes"), param_.nodes > 1 ? "3" : "");
}

// Regression: a Hugging Face id as the model gave a benchmark line that
// exits 2 (the engine builds only its presets). It is now a comment, every
// line of it, so the script runs the torchrun part.
TEST(LaunchScript, ModelThatIsNotAnEnginePresetGetsACommentedBenchmark) {
  ImageConfig config;
  config.tag = "25.09";
  config.model = "meta-llama/Llama-3.1-8B";
  const auto resolved = resolveConfig(config, catalog::builtinCatalog());
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  const std::string script = launchArtifact(*resolved).content;
  const auto commands = parseShellCommands(script);
  ASSERT_EQ(commands.size(), 2U);  // set -eu, torchrun
  EXPECT_EQ(commands[1][0], "torchrun");
  EXPECT_NE(script.find("# trainbench benchmark"), std::string::npos);
  EXPECT_NE(script.find("'meta-llama/Llama-3.1-8B' is not one"), std::string::npos);
}

std::string caseName(const ::testing::TestParamInfo<ArtifactMatrix::ParamType>& info) {
  const auto [gpus, nodes, compile, checkpointOpt] = info.param;
  return std::to_string(gpus) + "Gpus_" + std::to_string(nodes) + "Nodes_Compile" +
         (compile ? "On" : "Off") + "_CkptOpt" + (checkpointOpt ? "On" : "Off");
}

INSTANTIATE_TEST_SUITE_P(PodShapesAndOptimizations, ArtifactMatrix,
                         ::testing::Combine(::testing::Values(1, 8, 16), ::testing::Values(1, 3),
                                            ::testing::Bool(), ::testing::Bool()),
                         caseName);

}  // namespace
}  // namespace tb::config
