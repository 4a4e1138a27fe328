// The client library against a real docker-registry 2.8 on loopback: what the
// unit tests check with a scripted transport, checked here against the
// server's real behaviour (unsorted tags, Accept-dependent 404s, silly auth's
// Bearer challenges, a server that goes away).
#include <gtest/gtest.h>

#include "registry_test_support.hpp"
#include "tb/registry/registry_client.hpp"

namespace tb::registry::test {
namespace {

std::unique_ptr<RegistryClient> loopbackClient(const std::string& host,
                                               TransportOptions transport = {},
                                               std::optional<Credentials> credentials = {}) {
  ClientOptions options;
  options.scheme = Scheme::Http;
  options.allowPlainHttpRealm = true;
  options.credentials = std::move(credentials);
  options.maxRetries = 0;
  return std::make_unique<RegistryClient>(host, std::move(options), makeCurlTransport(transport));
}

#define REQUIRE_REGISTRY(seeded) ASSERT_TRUE((seeded).error.empty()) << (seeded).error

TEST(RegistryServerClient, TagsOfRealRegistryAreSortedAndComplete) {
  SeededRegistry& seeded = openRegistry();
  REQUIRE_REGISTRY(seeded);
  auto client = loopbackClient(seeded.server->host());
  auto tags = client->listTags(kRepository);
  ASSERT_TRUE(tags) << tags.error().message;
  EXPECT_EQ(*tags,
            (std::vector<std::string>{"25.06-serverless", "25.09-serverless", "25.10-serverless"}));
}

TEST(RegistryServerClient, IndexPlatformsAndConfigEnvAreRead) {
  SeededRegistry& seeded = openRegistry();
  REQUIRE_REGISTRY(seeded);
  auto client = loopbackClient(seeded.server->host());
  auto inspection = inspectImage(*client, kRepository, "25.10-serverless");
  ASSERT_TRUE(inspection) << inspection.error().message;
  EXPECT_EQ(inspection->digest, seeded.image.indexDigest);
  EXPECT_EQ(inspection->mediaType, kOciIndex);
  ASSERT_EQ(inspection->platforms.size(), 2u);
  EXPECT_EQ(inspection->platforms[0].platform.name(), "linux/amd64");
  EXPECT_EQ(inspection->platforms[1].platform.name(), "linux/arm64/v8");
  EXPECT_EQ(inspection->platforms[1].platform.digest, seeded.image.platformDigests[1]);
  for (const PlatformImage& image : inspection->platforms) {
    EXPECT_EQ(image.config.cudaVersion, "13.0.2");
    EXPECT_EQ(image.config.cudaDriverVersion, "580.95.05");
    ASSERT_TRUE(image.config.requireCuda);
    EXPECT_TRUE(image.config.requireCuda->starts_with("cuda>=13.0"));
  }
  EXPECT_EQ(inspection->platforms[1].config.architecture, "arm64");
}

TEST(RegistryServerClient, MissingTagIsNotFoundWithManifestUnknown) {
  SeededRegistry& seeded = openRegistry();
  REQUIRE_REGISTRY(seeded);
  auto client = loopbackClient(seeded.server->host());
  auto manifest = client->fetchManifest(kRepository, "99.99-missing");
  ASSERT_FALSE(manifest);
  EXPECT_EQ(manifest.error().kind, ErrorKind::NotFound);
  const std::string& message = manifest.error().message;
  EXPECT_NE(message.find(seeded.server->host()), std::string::npos) << message;
  EXPECT_NE(message.find("HTTP 404 MANIFEST_UNKNOWN"), std::string::npos) << message;
}

TEST(RegistryServerClient, ResponseLargerThanCapIsRefused) {
  SeededRegistry& seeded = openRegistry();
  REQUIRE_REGISTRY(seeded);
  TransportOptions small;
  small.maxResponseBytes = 64;
  auto client = loopbackClient(seeded.server->host(), small);
  auto manifest = client->fetchManifest(kRepository, "25.10-serverless");
  ASSERT_FALSE(manifest);
  EXPECT_EQ(manifest.error().kind, ErrorKind::Io);
  EXPECT_NE(manifest.error().message.find("64-byte limit"), std::string::npos)
      << manifest.error().message;
}

TEST(RegistryServerClient, SillyAuthBearerFlowFetchesOneTokenAndReusesIt) {
  SeededRegistry& seeded = sillyAuthRegistry();
  REQUIRE_REGISTRY(seeded);
  auto client = loopbackClient(seeded.server->host());
  auto tags = client->listTags(kRepository);
  ASSERT_TRUE(tags) << tags.error().message;
  EXPECT_EQ(tags->size(), 3u);
  auto inspection = inspectImage(*client, kRepository, "25.09-serverless");
  ASSERT_TRUE(inspection) << inspection.error().message;
  EXPECT_EQ(inspection->platforms.size(), 2u);
  EXPECT_EQ(client->tokenRequests(), 1) << "the token must be cached for the scope";
  const auto requests = seeded.tokenServer->requests();
  ASSERT_FALSE(requests.empty());
  const std::string& line = requests.back().requestLine;
  EXPECT_NE(line.find("service=local-registry"), std::string::npos) << line;
  EXPECT_NE(line.find("scope=repository%3Aegslingjun%2Ftraining-nv-pytorch%3Apull"),
            std::string::npos)
      << line;
}

TEST(RegistryServerClient, SillyAuthSendsCredentialsOnlyToTheTokenEndpoint) {
  SeededRegistry& seeded = sillyAuthRegistry();
  REQUIRE_REGISTRY(seeded);
  const std::size_t before = seeded.tokenServer->requests().size();
  auto client = loopbackClient(seeded.server->host(), {}, Credentials{"alice", kSecretPassword});
  ASSERT_TRUE(client->listTags(kRepository));
  const auto requests = seeded.tokenServer->requests();
  ASSERT_EQ(requests.size(), before + 1);
  EXPECT_TRUE(requests.back().authorization.starts_with("Basic "));
}

TEST(RegistryServerClient, RejectedCredentialsNameUnauthorizedAndHideThePassword) {
  SeededRegistry& seeded = sillyAuthRegistry();
  REQUIRE_REGISTRY(seeded);
  auto client = loopbackClient(seeded.server->host(), {}, Credentials{"rejected", kSecretPassword});
  auto tags = client->listTags(kRepository);
  ASSERT_FALSE(tags);
  const std::string& message = tags.error().message;
  EXPECT_NE(message.find("HTTP 401 UNAUTHORIZED"), std::string::npos) << message;
  EXPECT_EQ(message.find(kSecretPassword), std::string::npos) << message;
}

TEST(RegistryServerClient, ServerStoppedMidTestIsANetworkError) {
  auto seeded = startSeededRegistry(RegistryAuth::None);
  REQUIRE_REGISTRY(*seeded);
  auto client = loopbackClient(seeded->server->host());
  ASSERT_TRUE(client->listTags(kRepository));
  seeded->server->stop();
  auto manifest = client->fetchManifest(kRepository, "25.10-serverless");
  ASSERT_FALSE(manifest);
  EXPECT_EQ(manifest.error().kind, ErrorKind::Io);
  EXPECT_NE(manifest.error().message.find("network error"), std::string::npos)
      << manifest.error().message;
  EXPECT_NE(manifest.error().message.find(seeded->server->host()), std::string::npos);
}

}  // namespace
}  // namespace tb::registry::test
