// What trainbench config writes must pass trainbench validate: the generators
// and the validator encode the same rules from two sides, and this test is
// where they have to agree.
#include <gtest/gtest.h>

#include "tb/catalog/catalog_loader.hpp"
#include "tb/config/artifacts.hpp"
#include "tb/config/validation.hpp"

namespace tb::config {
namespace {

struct Shape {
  int gpus;
  int nodes;
  int zero;
};

class GeneratedArtifactsValidate : public ::testing::TestWithParam<Shape> {};

TEST_P(GeneratedArtifactsValidate, WithoutErrorsOrWarnings) {
  ImageConfig config;
  config.tag = "25.10";
  config.gpusPerPod = GetParam().gpus;
  config.nodes = GetParam().nodes;
  config.deepspeed.zeroStage = GetParam().zero;
  config.compilerOptimization = true;
  config.checkpointOptimization = true;
  auto resolved = resolveConfig(config, catalog::builtinCatalog());
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  for (ArtifactKind kind : {ArtifactKind::Env, ArtifactKind::Kubernetes, ArtifactKind::DeepSpeed,
                            ArtifactKind::TrainingArgs}) {
    const Artifact artifact = generateArtifact(*resolved, kind);
    const FileReport report = validateContent(artifact.fileName, artifact.content, FileKind::Auto,
                                              catalog::builtinCatalog());
    SCOPED_TRACE(artifact.fileName + ":\n" + artifact.content);
    for (const Finding& finding : report.findings) {
      EXPECT_EQ(finding.severity, Severity::Info) << finding.rule << ": " << finding.message;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GeneratedArtifactsValidate,
                         ::testing::Values(Shape{1, 1, 3}, Shape{8, 1, 2}, Shape{16, 1, 3},
                                           Shape{8, 4, 3}, Shape{16, 2, 0}),
                         [](const ::testing::TestParamInfo<Shape>& param) {
                           return std::to_string(param.param.gpus) + "Gpus_" +
                                  std::to_string(param.param.nodes) + "Nodes_Zero" +
                                  std::to_string(param.param.zero);
                         });

TEST(GeneratedArtifactsValidate, CheckpointOptimizationOffIsOnlyAnInfo) {
  ImageConfig config;
  config.tag = "25.09";
  auto resolved = resolveConfig(config, catalog::builtinCatalog());
  ASSERT_TRUE(resolved.ok());
  const Artifact env = envFileArtifact(*resolved);
  const FileReport report =
      validateContent(env.fileName, env.content, FileKind::Auto, catalog::builtinCatalog());
  ASSERT_EQ(report.findings.size(), 1U);
  EXPECT_EQ(report.findings[0].rule, "checkpoint-optimization");
  EXPECT_EQ(report.findings[0].severity, Severity::Info);
}

}  // namespace
}  // namespace tb::config
