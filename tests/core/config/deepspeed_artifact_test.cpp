// The DeepSpeed JSON per ZeRO stage and offload option, and the small pieces
// every artifact relies on: kind names, shell quoting, the image reference.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "artifact_parsing.hpp"
#include "tb/catalog/catalog_loader.hpp"
#include "tb/config/artifacts.hpp"

namespace tb::config {
namespace {

ResolvedConfig resolve(const ImageConfig& config) {
  auto resolved = resolveConfig(config, catalog::builtinCatalog());
  if (!resolved) throw std::runtime_error(resolved.error().message);
  return *resolved;
}

ImageConfig withStage(int stage) {
  ImageConfig config;
  config.tag = "25.04";
  config.deepspeed.zeroStage = stage;
  return config;
}

TEST(DeepSpeedArtifact, StageZeroHasNoShardingSettings) {
  const auto zero =
      nlohmann::json::parse(deepSpeedArtifact(resolve(withStage(0))).content)["zero_optimization"];
  EXPECT_EQ(zero, nlohmann::json({{"stage", 0}}));
}

TEST(DeepSpeedArtifact, StagesOneAndTwoHaveNoStageThreeKeys) {
  for (int stage : {1, 2}) {
    const auto zero = nlohmann::json::parse(
        deepSpeedArtifact(resolve(withStage(stage))).content)["zero_optimization"];
    EXPECT_EQ(zero.at("stage"), stage);
    EXPECT_TRUE(zero.at("overlap_comm").get<bool>());
    EXPECT_FALSE(zero.contains("stage3_prefetch_bucket_size")) << stage;
  }
}

TEST(DeepSpeedArtifact, OffloadOptionsWriteCpuDevices) {
  ImageConfig config = withStage(3);
  config.deepspeed.offloadOptimizer = true;
  config.deepspeed.offloadParameters = true;
  const auto zero =
      nlohmann::json::parse(deepSpeedArtifact(resolve(config)).content)["zero_optimization"];
  EXPECT_EQ(zero.at("offload_optimizer").at("device"), "cpu");
  EXPECT_EQ(zero.at("offload_param").at("device"), "cpu");
  EXPECT_EQ(zero.at("stage3_prefetch_bucket_size"), "auto");
}

TEST(DeepSpeedArtifact, Bf16OffIsWrittenAsDisabled) {
  ImageConfig config = withStage(2);
  config.bf16 = false;
  const auto document = nlohmann::json::parse(deepSpeedArtifact(resolve(config)).content);
  EXPECT_EQ(document.at("bf16").at("enabled"), false);
  const auto kwargs = test::parsePythonKwargs(trainingArgsArtifact(resolve(config)).content);
  EXPECT_EQ(kwargs.at("bf16"), "False");
}

TEST(ArtifactKinds, NamesRoundTripAndUnknownNameIsRefused) {
  ASSERT_EQ(allArtifactKinds().size(), 7U);
  for (ArtifactKind kind : allArtifactKinds()) {
    const auto parsed = parseArtifactKind(toString(kind));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, kind);
  }
  const auto bad = parseArtifactKind("helm");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("'helm'"), std::string::npos);
}

TEST(ArtifactKinds, GenerateArtifactsGivesOneFilePerKindWithDistinctNames) {
  const auto artifacts = generateArtifacts(resolve(withStage(3)));
  ASSERT_EQ(artifacts.size(), allArtifactKinds().size());
  std::set<std::string> names;
  for (std::size_t i = 0; i < artifacts.size(); ++i) {
    EXPECT_EQ(artifacts[i].kind, allArtifactKinds()[i]);
    EXPECT_TRUE(artifacts[i].content.ends_with("\n"));
    names.insert(artifacts[i].fileName);
  }
  EXPECT_EQ(names.size(), artifacts.size());
}

TEST(ShellQuote, PlainWordsStayAndOthersAreQuotedSafely) {
  EXPECT_EQ(shellQuote("--nproc_per_node=8"), "--nproc_per_node=8");
  EXPECT_EQ(shellQuote(""), "''");
  EXPECT_EQ(shellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(shellQuote("--node_rank=${NODE_RANK}"), "\"--node_rank=${NODE_RANK}\"");
  EXPECT_EQ(shellQuote("a b"), "'a b'");
  EXPECT_EQ(shellQuote("$(rm -rf /)"), "'$(rm -rf /)'");
}

TEST(VpcRegistry, EveryArtifactUsesTheVpcReference) {
  ImageConfig config = withStage(3);
  config.registry = RegistryKind::Vpc;
  const ResolvedConfig resolved = resolve(config);
  ASSERT_NE(resolved.imageReference.find("acs-registry-vpc.cn-beijing"), std::string::npos);
  const auto pod = YAML::Load(kubernetesArtifact(resolved).content);
  EXPECT_EQ(pod["spec"]["containers"][0]["image"].as<std::string>(), resolved.imageReference);
  const auto docker = test::parseShellCommands(dockerRunArtifact(resolved).content).front();
  EXPECT_NE(std::find(docker.begin(), docker.end(), resolved.imageReference), docker.end());
}

}  // namespace
}  // namespace tb::config
