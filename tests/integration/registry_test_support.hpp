// The registries the integration tests share: started once per test program
// (starting docker-registry takes a moment) and stopped at exit by their RAII
// owners. Tests that stop a server start their own.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "registry_loopback_http.hpp"
#include "registry_push.hpp"
#include "registry_server.hpp"

namespace tb::registry::test {

inline constexpr const char* kRepository = "egslingjun/training-nv-pytorch";
/// Pushed in this order; registry 2.8 lists them in its own order.
inline const std::vector<std::string> kPushedTags{"25.10-serverless", "25.06-serverless",
                                                  "25.09-serverless"};
/// A password that must never appear in any output.
inline constexpr const char* kSecretPassword = "hunter2-Sup3r-Secret";

/// A registry with the test image pushed under kPushedTags.
struct SeededRegistry {
  std::unique_ptr<LoopbackHttpServer> tokenServer;  ///< only with Silly auth
  std::unique_ptr<RegistryServer> server;
  PushedImage image;
  std::string error;  ///< why it is unusable; empty when fine
};

/// The shared registry without auth.
SeededRegistry& openRegistry();
/// The shared registry with `auth: silly` and a token server that issues
/// tokens, refusing user "rejected" with 401 UNAUTHORIZED.
SeededRegistry& sillyAuthRegistry();

/// Starts a registry and pushes the image; `error` says what failed.
std::unique_ptr<SeededRegistry> startSeededRegistry(RegistryAuth auth);

}  // namespace tb::registry::test
