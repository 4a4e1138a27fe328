// --insecure exists so tests can talk to a registry on 127.0.0.1 without TLS;
// it is refused for any other host, so it cannot become a habit that turns
// off verification against a real registry.
#include "registry_session.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <ostream>

#include "tb/common/text.hpp"
#include "tb/registry/image_reference.hpp"

namespace tb::cli {
namespace {

constexpr long long kMaxTimeoutSeconds = 3600;

Expected<std::chrono::milliseconds> parseTimeout(const std::string& text) {
  const auto seconds = parseUnsigned(trim(text));
  if (!seconds || *seconds < 1 || *seconds > kMaxTimeoutSeconds) {
    return makeError(
        ErrorKind::BadInput,
        "--registry-timeout: expected whole seconds from 1 to 3600, got '" + text + "'");
  }
  return std::chrono::milliseconds(*seconds * 1000);
}

std::optional<registry::Credentials> credentialsFromEnvironment() {
  const char* user = std::getenv("TRAINBENCH_REGISTRY_USERNAME");
  const char* password = std::getenv("TRAINBENCH_REGISTRY_PASSWORD");
  if (user == nullptr || *user == '\0') return std::nullopt;
  return registry::Credentials{user, password == nullptr ? "" : password};
}

}  // namespace

void addRegistryOptions(CLI::App& command, RegistryOptions& options) {
  command.add_flag("--insecure", options.insecure,
                   "Plain HTTP without TLS verification; only for a registry on 127.0.0.1, "
                   "localhost or ::1 (tests)");
  // Checked as it is parsed, so a bad value is refused even where no
  // registry is asked (compat without --from-registry).
  command
      .add_option("--registry-timeout", options.timeout,
                  "Seconds one registry request may take in all (default 60)")
      ->type_name("SECONDS")
      ->check([](const std::string& text) {
        auto timeout = parseTimeout(text);
        return timeout ? std::string() : timeout.error().message;
      });
}

Expected<std::unique_ptr<registry::RegistryClient>> makeRegistryClient(
    const std::string& registryHost, const RegistryOptions& options, std::ostream& err) {
  auto total = parseTimeout(options.timeout);
  if (!total) return std::move(total).error();
  registry::TransportOptions transport;
  transport.totalTimeout = *total;
  transport.connectTimeout = std::min(*total, std::chrono::milliseconds(10'000));
  registry::ClientOptions client;
  client.credentials = credentialsFromEnvironment();
  if (options.insecure) {
    if (!registry::isLoopbackRegistry(registryHost)) {
      return makeError(ErrorKind::BadInput,
                       "--insecure: allowed only for a registry on this machine (127.0.0.1, "
                       "localhost, ::1), not '" +
                           registryHost + "'");
    }
    err << "trainbench: WARNING: --insecure: talking plain HTTP to " << registryHost
        << " with no TLS verification; use this only for a local test registry\n";
    transport.verifyTls = false;
    client.scheme = registry::Scheme::Http;
    client.allowPlainHttpRealm = true;
  }
  return std::make_unique<registry::RegistryClient>(registryHost, std::move(client),
                                                    registry::makeCurlTransport(transport));
}

}  // namespace tb::cli
