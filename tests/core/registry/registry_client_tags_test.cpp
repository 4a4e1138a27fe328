// Tag listing across Link pages, and manifest fetching with the full Accept
// set (without the index types registry 2.8 answers 404 for an index).
#include <gtest/gtest.h>

#include "scripted_transport.hpp"

namespace tb::registry::test {
namespace {

TEST(RegistryClientTags, LinkPagesAreFollowedMergedSortedAndDeduplicated) {
  ScriptedClient scripted;
  scripted.script->replies.push_back(reply(
      200, R"({"tags":["c","a"]})", {{"Link", R"(</v2/app/tags/list?n=2&last=c>; rel="next")"}}));
  scripted.script->replies.push_back(
      reply(200, R"({"tags":["c","b"]})",
            {{"link", R"(<https://registry.test/v2/app/tags/list?n=2&last=d>; rel="next")"}}));
  scripted.script->replies.push_back(reply(200, R"({"tags":["d"]})"));
  auto tags = scripted.client->listTags("app");
  ASSERT_TRUE(tags) << tags.error().message;
  EXPECT_EQ(*tags, (std::vector<std::string>{"a", "b", "c", "d"}));
  ASSERT_EQ(scripted.script->sent.size(), 3u);
  EXPECT_EQ(scripted.script->sent[1].url, "https://registry.test/v2/app/tags/list?n=2&last=c");
  EXPECT_EQ(scripted.script->sent[2].url, "https://registry.test/v2/app/tags/list?n=2&last=d");
}

TEST(RegistryClientTags, LinkToAnotherHostIsRefused) {
  ScriptedClient scripted;
  scripted.script->replies.push_back(
      reply(200, R"({"tags":["a"]})", {{"Link", R"(<https://evil.test/v2/x>; rel="next")"}}));
  auto tags = scripted.client->listTags("app");
  ASSERT_FALSE(tags);
  EXPECT_NE(tags.error().message.find("evil.test"), std::string::npos);
}

TEST(RegistryClientTags, ManifestRequestAcceptsIndexListAndImageTypes) {
  ScriptedClient scripted;
  scripted.script->replies.push_back(reply(
      200,
      R"({"manifests":[{"digest":"sha256:1","platform":{"os":"linux","architecture":"amd64"}}]})",
      {{"Content-Type", std::string(kOciIndex)}, {"Docker-Content-Digest", "sha256:idx"}}));
  auto manifest = scripted.client->fetchManifest("app", "1");
  ASSERT_TRUE(manifest) << manifest.error().message;
  EXPECT_EQ(manifest->digest, "sha256:idx");
  EXPECT_EQ(manifest->mediaType, kOciIndex);
  std::string accept;
  for (const HttpHeader& header : scripted.script->sent[0].headers) {
    if (header.name == "Accept") accept = header.value;
  }
  for (const std::string_view type :
       {kOciIndex, kDockerManifestList, kOciManifest, kDockerManifest}) {
    EXPECT_NE(accept.find(type), std::string::npos) << type;
  }
}

TEST(RegistryClientTags, InspectionWalksEachPlatformToItsConfig) {
  ScriptedClient scripted;
  scripted.script->replies.push_back(reply(200, R"({"manifests":[
        {"digest":"sha256:a","platform":{"os":"linux","architecture":"amd64"}},
        {"digest":"sha256:att","platform":{"os":"unknown","architecture":"unknown"}}]})"));
  scripted.script->replies.push_back(
      reply(200, R"({"config":{"digest":"sha256:cfg"},"layers":[]})"));
  scripted.script->replies.push_back(reply(
      200, R"({"os":"linux","architecture":"amd64","config":{"Env":["CUDA_VERSION=12.8.1"]}})"));
  auto inspection = inspectImage(*scripted.client, "app", "1");
  ASSERT_TRUE(inspection) << inspection.error().message;
  ASSERT_EQ(inspection->platforms.size(), 1u) << "the attestation entry must be skipped";
  EXPECT_EQ(inspection->platforms[0].config.cudaVersion, "12.8.1");
  EXPECT_EQ(scripted.script->sent[2].url, "https://registry.test/v2/app/blobs/sha256:cfg");
}

}  // namespace
}  // namespace tb::registry::test
