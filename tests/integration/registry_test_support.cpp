// The token server issues a new token per request ("token-1", "token-2", ...)
// so tests can tell a cached token from a fresh one.
#include "registry_test_support.hpp"

#include <atomic>

namespace tb::registry::test {
namespace {

std::string tokenEndpoint(const ReceivedRequest& request, std::atomic<int>& issued) {
  // "rejected:..." in Basic is cmVqZWN0ZWQ6 in base64.
  if (request.authorization.starts_with("Basic cmVqZWN0ZWQ6")) {
    return httpResponse(
        401, "application/json",
        R"({"errors":[{"code":"UNAUTHORIZED","message":"invalid username or password"}]})");
  }
  return httpResponse(200, "application/json",
                      R"({"token":"token-)" + std::to_string(++issued) + R"(","expires_in":300})");
}

}  // namespace

std::unique_ptr<SeededRegistry> startSeededRegistry(RegistryAuth auth) {
  auto seeded = std::make_unique<SeededRegistry>();
  std::string realm;
  if (auth == RegistryAuth::Silly) {
    auto issued = std::make_shared<std::atomic<int>>(0);
    seeded->tokenServer = std::make_unique<LoopbackHttpServer>(
        [issued](const ReceivedRequest& request) { return tokenEndpoint(request, *issued); });
    realm = "http://" + seeded->tokenServer->address() + "/token";
  }
  seeded->server = std::make_unique<RegistryServer>(auth, realm);
  if (!seeded->server->startError().empty()) {
    seeded->error = seeded->server->startError();
    return seeded;
  }
  auto pushed = pushTwoPlatformImage(seeded->server->host(), kRepository, kPushedTags);
  if (!pushed) {
    seeded->error = "push failed: " + pushed.error().message;
    return seeded;
  }
  seeded->image = std::move(*pushed);
  return seeded;
}

SeededRegistry& openRegistry() {
  static const std::unique_ptr<SeededRegistry> registry = startSeededRegistry(RegistryAuth::None);
  return *registry;
}

SeededRegistry& sillyAuthRegistry() {
  static const std::unique_ptr<SeededRegistry> registry = startSeededRegistry(RegistryAuth::Silly);
  return *registry;
}

}  // namespace tb::registry::test
