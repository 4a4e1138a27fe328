// `trainbench registry` and `compat --from-registry` run as the real binary
// against a real docker-registry on loopback: JSON fields, exit codes (1 for
// network and server failures, 2 for bad input and unknown tags), error
// wording, --insecure rules, proxies and credential hygiene.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "cli_runner.hpp"
#include "registry_test_support.hpp"

namespace tb::registry::test {
namespace {

using cli::test::CliRun;
using cli::test::parseSingleDocument;
using nlohmann::json;

std::map<std::string, std::string> loopbackEnvironment() {
  return {{"NO_PROXY", "127.0.0.1,localhost,::1"}, {"no_proxy", "127.0.0.1,localhost,::1"}};
}

CliRun trainbench(const std::vector<std::string>& args,
                  std::map<std::string, std::string> environment = loopbackEnvironment()) {
  return cli::test::runCli(args, environment);
}

std::string imageOf(const SeededRegistry& seeded, const std::string& tag) {
  return seeded.server->host() + "/" + kRepository + ":" + tag;
}

#define REQUIRE_REGISTRY(seeded) ASSERT_TRUE((seeded).error.empty()) << (seeded).error

TEST(CliRegistry, TagsJsonListsSortedTagsAndInsecureWarnsOnStderr) {
  SeededRegistry& seeded = openRegistry();
  REQUIRE_REGISTRY(seeded);
  const CliRun run = trainbench(
      {"registry", "tags", seeded.server->host() + "/" + kRepository, "--insecure", "--json"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  EXPECT_EQ(doc.at("registry"), seeded.server->host());
  EXPECT_EQ(doc.at("repository"), kRepository);
  EXPECT_EQ(doc.at("count"), 3);
  EXPECT_EQ(doc.at("tags"), json({"25.06-serverless", "25.09-serverless", "25.10-serverless"}));
  EXPECT_NE(run.err.find("WARNING: --insecure"), std::string::npos) << run.err;
}

TEST(CliRegistry, InspectJsonGivesDigestPlatformsCudaAndDriverPerPlatform) {
  SeededRegistry& seeded = openRegistry();
  REQUIRE_REGISTRY(seeded);
  const CliRun run = trainbench(
      {"registry", "inspect", imageOf(seeded, "25.10-serverless"), "--insecure", "--json"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  EXPECT_EQ(doc.at("digest"), seeded.image.indexDigest);
  EXPECT_EQ(doc.at("media_type"), "application/vnd.oci.image.index.v1+json");
  EXPECT_EQ(doc.at("tag"), "25.10-serverless");
  ASSERT_EQ(doc.at("platforms").size(), 2u);
  const json& arm = doc.at("platforms").at(1);
  EXPECT_EQ(arm.at("platform"), "linux/arm64/v8");
  EXPECT_EQ(arm.at("architecture"), "arm64");
  EXPECT_EQ(arm.at("digest"), seeded.image.platformDigests[1]);
  EXPECT_EQ(arm.at("cuda_version"), "13.0.2");
  EXPECT_EQ(arm.at("cuda_driver_version"), "580.95.05");
  EXPECT_EQ(arm.at("required_driver"), 580);
  EXPECT_TRUE(arm.at("nvidia_require_cuda").get<std::string>().starts_with("cuda>=13.0"));
}

TEST(CliRegistry, InspectTextShowsOneRowPerPlatform) {
  SeededRegistry& seeded = openRegistry();
  REQUIRE_REGISTRY(seeded);
  const CliRun run =
      trainbench({"registry", "inspect", imageOf(seeded, "25.06-serverless"), "--insecure"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find(seeded.image.indexDigest), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("linux/amd64"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("linux/arm64/v8"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("580.95.05"), std::string::npos) << run.out;
}

TEST(CliRegistry, MissingTagExitsTwoNamingHostStatusAndManifestUnknown) {
  SeededRegistry& seeded = openRegistry();
  REQUIRE_REGISTRY(seeded);
  const CliRun run =
      trainbench({"registry", "inspect", imageOf(seeded, "99.99-missing"), "--insecure"});
  EXPECT_EQ(run.exitCode, 2) << run.err;
  EXPECT_NE(run.err.find(seeded.server->host()), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("HTTP 404 MANIFEST_UNKNOWN"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST(CliRegistry, UnknownRepositoryExitsTwoWithNameUnknown) {
  SeededRegistry& seeded = openRegistry();
  REQUIRE_REGISTRY(seeded);
  const CliRun run =
      trainbench({"registry", "tags", seeded.server->host() + "/no/such-repo", "--insecure"});
  EXPECT_EQ(run.exitCode, 2) << run.err;
  EXPECT_NE(run.err.find("NAME_UNKNOWN"), std::string::npos) << run.err;
}

TEST(CliRegistry, BadReferencesExitTwoNamingTheValue) {
  const CliRun tagged = trainbench({"registry", "tags", "127.0.0.1:9/app:1", "--insecure"});
  EXPECT_EQ(tagged.exitCode, 2);
  EXPECT_NE(tagged.err.find("127.0.0.1:9/app:1"), std::string::npos) << tagged.err;
  const CliRun untagged = trainbench({"registry", "inspect", "127.0.0.1:9/app", "--insecure"});
  EXPECT_EQ(untagged.exitCode, 2);
  EXPECT_NE(untagged.err.find("has no tag"), std::string::npos) << untagged.err;
  const CliRun timeout =
      trainbench({"registry", "tags", "127.0.0.1:9/app", "--insecure", "--registry-timeout", "0"});
  EXPECT_EQ(timeout.exitCode, 2);
  EXPECT_NE(timeout.err.find("'0'"), std::string::npos) << timeout.err;
}

TEST(CliRegistry, InsecureIsRefusedForNonLoopbackRegistry) {
  const CliRun run = trainbench({"registry", "tags", "registry.example.com/app", "--insecure"});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_NE(run.err.find("registry.example.com"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("WARNING"), std::string::npos) << "refused before any request";
}

TEST(CliRegistry, TlsStaysOnWithoutInsecureSoPlainHttpServerFails) {
  SeededRegistry& seeded = openRegistry();
  REQUIRE_REGISTRY(seeded);
  const CliRun run = trainbench({"registry", "tags", seeded.server->host() + "/" + kRepository});
  EXPECT_EQ(run.exitCode, 1) << run.err;
  EXPECT_NE(run.err.find("network error"), std::string::npos) << run.err;
}

TEST(CliRegistry, ServerStoppedMidTestExitsOneWithNetworkError) {
  auto seeded = startSeededRegistry(RegistryAuth::None);
  REQUIRE_REGISTRY(*seeded);
  const std::string repository = seeded->server->host() + "/" + kRepository;
  ASSERT_EQ(trainbench({"registry", "tags", repository, "--insecure"}).exitCode, 0);
  seeded->server->stop();
  const CliRun run = trainbench({"registry", "tags", repository, "--insecure", "--json"});
  EXPECT_EQ(run.exitCode, 1) << run.err;
  EXPECT_NE(run.err.find("network error"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(seeded->server->host()), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << "no JSON document for a failure: " << run.out;
}

TEST(CliRegistry, ResponseThatIsNotJsonExitsOneAndSaysSo) {
  LoopbackHttpServer server([](const ReceivedRequest&) {
    return httpResponse(200, "text/html", "<html><body>captive portal</body></html>");
  });
  const CliRun run =
      trainbench({"registry", "tags", server.address() + "/" + kRepository, "--insecure"});
  EXPECT_EQ(run.exitCode, 1) << run.err;
  EXPECT_NE(run.err.find("not JSON"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(server.address()), std::string::npos) << run.err;
}

TEST(CliRegistry, ServerErrorsAreRetriedABoundedNumberOfTimesThenExitOne) {
  LoopbackHttpServer server([](const ReceivedRequest&) {
    return httpResponse(503, "application/json",
                        R"({"errors":[{"code":"UNAVAILABLE","message":"try later"}]})");
  });
  const CliRun run =
      trainbench({"registry", "tags", server.address() + "/" + kRepository, "--insecure"});
  EXPECT_EQ(run.exitCode, 1) << run.err;
  EXPECT_NE(run.err.find("HTTP 503 UNAVAILABLE"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("gave up after 4 attempts"), std::string::npos) << run.err;
  EXPECT_EQ(server.requests().size(), 4u) << "one request and three retries";
}

TEST(CliRegistry, SlowServerHitsTheTotalTimeoutAndExitsOne) {
  LoopbackHttpServer server([](const ReceivedRequest&) {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    return httpResponse(200, "application/json", R"({"tags":[]})");
  });
  const CliRun run = trainbench({"registry", "tags", server.address() + "/" + kRepository,
                                 "--insecure", "--registry-timeout", "1"});
  EXPECT_EQ(run.exitCode, 1) << run.err;
  EXPECT_NE(run.err.find("network error"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("imed out"), std::string::npos) << run.err;
}

TEST(CliRegistry, ProxyFromTheEnvironmentIsUsed) {
  LoopbackHttpServer proxy([](const ReceivedRequest&) {
    return httpResponse(200, "application/json", R"({"name":"app","tags":["via-proxy"]})");
  });
  // A registry address nothing listens on: only the proxy can answer.
  const std::string target = "127.0.0.1:" + std::to_string(freeLoopbackPort());
  const CliRun run =
      trainbench({"registry", "tags", target + "/app", "--insecure", "--json"},
                 {{"http_proxy", "http://" + proxy.address()}, {"NO_PROXY", ""}, {"no_proxy", ""}});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_EQ(parseSingleDocument(run).at("tags"), json({"via-proxy"}));
  const auto requests = proxy.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_NE(requests[0].requestLine.find("http://" + target + "/v2/app/tags/list"),
            std::string::npos)
      << requests[0].requestLine;
}

TEST(CliRegistry, SillyAuthBearerFlowWorksThroughTheCli) {
  SeededRegistry& seeded = sillyAuthRegistry();
  REQUIRE_REGISTRY(seeded);
  const CliRun run = trainbench(
      {"registry", "inspect", imageOf(seeded, "25.09-serverless"), "--insecure", "--json"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_EQ(parseSingleDocument(run).at("platforms").size(), 2u);
}

TEST(CliRegistry, CredentialsNeverAppearInOutputOrErrors) {
  SeededRegistry& seeded = sillyAuthRegistry();
  REQUIRE_REGISTRY(seeded);
  auto environment = loopbackEnvironment();
  environment["TRAINBENCH_REGISTRY_USERNAME"] = "rejected";
  environment["TRAINBENCH_REGISTRY_PASSWORD"] = kSecretPassword;
  const CliRun run = trainbench(
      {"registry", "inspect", imageOf(seeded, "25.10-serverless"), "--insecure", "--json"},
      environment);
  EXPECT_EQ(run.exitCode, 2) << run.err;
  EXPECT_NE(run.err.find("UNAUTHORIZED"), std::string::npos) << run.err;
  for (const std::string& text : {run.out, run.err}) {
    EXPECT_EQ(text.find(kSecretPassword), std::string::npos) << text;
    EXPECT_EQ(text.find("cmVqZWN0ZWQ6"), std::string::npos) << "base64 of the credentials";
  }
}

TEST(CliRegistry, CompatFromRegistryJudgesWhatTheImageDeclares) {
  SeededRegistry& seeded = openRegistry();
  REQUIRE_REGISTRY(seeded);
  // The catalog says 25.09 is amd64 only with driver >= 575; the pushed image
  // publishes arm64 too and declares CUDA 13.0.2 with driver 580.
  const std::vector<std::string> host{"--driver", "580.95.05", "--gpu", "NVIDIA GH200 480GB",
                                      "--arch",   "arm64",     "--json"};
  std::vector<std::string> fromCatalog{"compat", "--image", imageOf(seeded, "25.09-serverless")};
  fromCatalog.insert(fromCatalog.end(), host.begin(), host.end());
  EXPECT_EQ(trainbench(fromCatalog).exitCode, 3);

  std::vector<std::string> fromRegistry = fromCatalog;
  fromRegistry.insert(fromRegistry.end(), {"--from-registry", "--insecure"});
  const CliRun run = trainbench(fromRegistry);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  EXPECT_EQ(doc.at("status"), "supported");
  EXPECT_EQ(doc.at("cuda"), "13.0.2");
  EXPECT_EQ(doc.at("required_driver"), 580);
  const std::string notes = doc.at("host").at("notes").dump();
  EXPECT_NE(notes.find(seeded.image.indexDigest), std::string::npos) << notes;
  EXPECT_NE(notes.find("CUDA_VERSION=13.0.2"), std::string::npos) << notes;
}

TEST(CliRegistry, CompatFromRegistryWithMissingTagExitsTwo) {
  SeededRegistry& seeded = openRegistry();
  REQUIRE_REGISTRY(seeded);
  // 25.04 is in the catalog but was never pushed.
  const CliRun run = trainbench({"compat", "--image", imageOf(seeded, "25.04-serverless"),
                                 "--driver", "580.95.05", "--gpu", "NVIDIA H100 80GB HBM3",
                                 "--arch", "amd64", "--from-registry", "--insecure"});
  EXPECT_EQ(run.exitCode, 2) << run.err;
  EXPECT_NE(run.err.find("MANIFEST_UNKNOWN"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace tb::registry::test
