// Documents as registry 2.8 and image builders produce them, plus the broken
// shapes a proxy or a wrong endpoint returns.
#include <gtest/gtest.h>

#include "tb/registry/registry_documents.hpp"

namespace tb::registry {
namespace {

TEST(RegistryDocuments, TagListIsReadAndNullMeansNoTags) {
  auto tags = parseTagList(R"({"name":"app","tags":["b","a"]})", "tags");
  ASSERT_TRUE(tags) << tags.error().message;
  EXPECT_EQ(*tags, (std::vector<std::string>{"b", "a"}));
  auto none = parseTagList(R"({"name":"app","tags":null})", "tags");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(RegistryDocuments, NonJsonResponseIsAnErrorQuotingItsStart) {
  auto tags = parseTagList("<html><body>Bad gateway</body></html>", "GET /v2/app/tags/list");
  ASSERT_FALSE(tags);
  EXPECT_NE(tags.error().message.find("not JSON"), std::string::npos) << tags.error().message;
  EXPECT_NE(tags.error().message.find("<html>"), std::string::npos);
  EXPECT_NE(tags.error().message.find("GET /v2/app/tags/list"), std::string::npos);
}

TEST(RegistryDocuments, TagsThatAreNotStringsAreRejected) {
  EXPECT_FALSE(parseTagList(R"({"tags":[1]})", "tags"));
  EXPECT_FALSE(parseTagList(R"({"tags":"a"})", "tags"));
}

TEST(RegistryDocuments, IndexPlatformsAreRead) {
  auto manifest = parseManifest(
      R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[
          {"digest":"sha256:1","mediaType":"m","platform":{"os":"linux","architecture":"amd64"}},
          {"digest":"sha256:2","platform":{"os":"linux","architecture":"arm64","variant":"v8"}}]})",
      "", "index");
  ASSERT_TRUE(manifest) << manifest.error().message;
  EXPECT_TRUE(manifest->isIndex);
  EXPECT_EQ(manifest->mediaType, kOciIndex);
  ASSERT_EQ(manifest->platforms.size(), 2u);
  EXPECT_EQ(manifest->platforms[0].name(), "linux/amd64");
  EXPECT_EQ(manifest->platforms[1].name(), "linux/arm64/v8");
  EXPECT_EQ(manifest->platforms[1].digest, "sha256:2");
}

TEST(RegistryDocuments, ImageManifestGivesConfigDigestAndContentTypeFallback) {
  auto manifest = parseManifest(R"({"schemaVersion":2,"config":{"digest":"sha256:c"},"layers":[]})",
                                kDockerManifest, "image");
  ASSERT_TRUE(manifest) << manifest.error().message;
  EXPECT_FALSE(manifest->isIndex);
  EXPECT_EQ(manifest->configDigest, "sha256:c");
  EXPECT_EQ(manifest->mediaType, kDockerManifest);
}

TEST(RegistryDocuments, ManifestWithoutConfigOrManifestsIsRejected) {
  auto manifest = parseManifest(R"({"schemaVersion":2})", "", "GET /v2/app/manifests/1");
  ASSERT_FALSE(manifest);
  EXPECT_NE(manifest.error().message.find("neither"), std::string::npos);
}

TEST(RegistryDocuments, ConfigEnvGivesCudaDeclaration) {
  auto config = parseImageConfig(
      R"({"os":"linux","architecture":"arm64","config":{"Env":["PATH=/usr/bin",
          "CUDA_VERSION=13.0.2","NVIDIA_REQUIRE_CUDA=cuda>=13.0 brand=tesla,driver>=535",
          "CUDA_DRIVER_VERSION=580.95.05","CUDA_VERSION_SUFFIX=x"]}})",
      "config");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->architecture, "arm64");
  EXPECT_EQ(config->cudaVersion, "13.0.2");
  EXPECT_EQ(config->requireCuda, "cuda>=13.0 brand=tesla,driver>=535");
  EXPECT_EQ(config->cudaDriverVersion, "580.95.05");
  EXPECT_EQ(config->env.size(), 5u);
  EXPECT_FALSE(config->envValue("CUDA"));
}

TEST(RegistryDocuments, ErrorBodyCodeAndMessageAreRead) {
  auto body = parseErrorBody(
      R"({"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown","detail":{}}]})");
  ASSERT_TRUE(body);
  EXPECT_EQ(body->code, "MANIFEST_UNKNOWN");
  EXPECT_EQ(body->message, "manifest unknown");
  EXPECT_FALSE(parseErrorBody("not json"));
  EXPECT_FALSE(parseErrorBody(R"({"errors":[]})"));
}

TEST(RegistryDocuments, TagsAreSortedAndDeduplicated) {
  EXPECT_EQ(normalizeTags({"25.10-serverless", "25.06-serverless", "25.10-serverless", "25.09"}),
            (std::vector<std::string>{"25.06-serverless", "25.09", "25.10-serverless"}));
}

}  // namespace
}  // namespace tb::registry
