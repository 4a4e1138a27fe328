// resolveConfig: the one gate before any artifact is generated. Each bad
// field must be refused with a message that names the field and the value.
#include <gtest/gtest.h>

#include "tb/catalog/catalog_loader.hpp"
#include "tb/config/image_config.hpp"

namespace tb::config {
namespace {

ImageConfig baseConfig() {
  ImageConfig config;
  config.tag = "25.09";
  return config;
}

void expectRefused(const ImageConfig& config, ErrorKind kind,
                   const std::vector<std::string>& mentions) {
  const auto resolved = resolveConfig(config, catalog::builtinCatalog());
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.error().kind, kind);
  for (const auto& text : mentions) {
    EXPECT_NE(resolved.error().message.find(text), std::string::npos)
        << "'" << text << "' not in: " << resolved.error().message;
  }
}

TEST(SocketInterface, EthernetForOneTwoFourEightGpusAndHpnForSixteen) {
  for (int gpus : {1, 2, 4, 8}) EXPECT_EQ(socketInterfaceFor(gpus), "eth0") << gpus;
  EXPECT_EQ(socketInterfaceFor(16), "hpn0");
  for (int gpus : {0, 3, 6, 12, 32, -1}) EXPECT_EQ(socketInterfaceFor(gpus), "") << gpus;
}

TEST(ResolveConfig, PublicRegistryUsesTheReleaseImage) {
  const auto resolved = resolveConfig(baseConfig(), catalog::builtinCatalog());
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  EXPECT_EQ(resolved->imageReference, catalog::builtinCatalog().findRelease("25.09")->image);
  EXPECT_EQ(resolved->socketInterface, "eth0");
  EXPECT_EQ(resolved->objectName, "trainbench-25-09");
}

TEST(ResolveConfig, VpcRegistryFillsTheRegionIntoThePattern) {
  ImageConfig config = baseConfig();
  config.registry = RegistryKind::Vpc;
  config.region = "cn-beijing";
  const auto resolved = resolveConfig(config, catalog::builtinCatalog());
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  EXPECT_EQ(resolved->imageReference,
            "acs-registry-vpc.cn-beijing.cr.aliyuncs.com/egslingjun/"
            "training-nv-pytorch:25.09-serverless");
}

TEST(ResolveConfig, VpcRegionWithoutMirrorIsRefusedNamingTheRegion) {
  ImageConfig config = baseConfig();
  config.registry = RegistryKind::Vpc;
  config.region = "us-west-1";
  expectRefused(config, ErrorKind::BadInput, {"region", "us-west-1", "cn-beijing"});
}

TEST(ResolveConfig, UnknownTagIsNotFoundAndListsKnownTags) {
  ImageConfig config = baseConfig();
  config.tag = "24.01";
  expectRefused(config, ErrorKind::NotFound, {"24.01", "25.04", "25.10"});
}

TEST(ResolveConfig, PodSizeOutsideTheNotesIsRefused) {
  for (int gpus : {0, 3, 12, 32}) {
    ImageConfig config = baseConfig();
    config.gpusPerPod = gpus;
    expectRefused(config, ErrorKind::BadInput, {"gpus", "'" + std::to_string(gpus) + "'"});
  }
}

TEST(ResolveConfig, NodesZeroStageAndBatchAreRangeChecked) {
  ImageConfig nodes = baseConfig();
  nodes.nodes = 0;
  expectRefused(nodes, ErrorKind::BadInput, {"nodes", "'0'"});
  ImageConfig zero = baseConfig();
  zero.deepspeed.zeroStage = 4;
  expectRefused(zero, ErrorKind::BadInput, {"zero", "'4'"});
  ImageConfig batch = baseConfig();
  batch.microBatch = 0;
  expectRefused(batch, ErrorKind::BadInput, {"micro-batch"});
}

TEST(ResolveConfig, ParameterOffloadNeedsZeroThree) {
  ImageConfig config = baseConfig();
  config.deepspeed.zeroStage = 2;
  config.deepspeed.offloadParameters = true;
  expectRefused(config, ErrorKind::BadInput, {"stage 3"});
}

TEST(ResolveConfig, CompilerOptimizationNeedsBf16AndGradientCheckpointing) {
  ImageConfig noBf16 = baseConfig();
  noBf16.compilerOptimization = true;
  noBf16.bf16 = false;
  expectRefused(noBf16, ErrorKind::BadInput, {"bf16"});
  ImageConfig noCheckpointing = baseConfig();
  noCheckpointing.compilerOptimization = true;
  noCheckpointing.gradientCheckpointing = false;
  expectRefused(noCheckpointing, ErrorKind::BadInput, {"gradient checkpointing"});
}

TEST(ResolveConfig, JobNameMustBeAKubernetesName) {
  ImageConfig config = baseConfig();
  config.jobName = "My_Job";
  expectRefused(config, ErrorKind::BadInput, {"job-name", "My_Job"});
}

}  // namespace
}  // namespace tb::config
