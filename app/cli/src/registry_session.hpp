// Building a registry client from command-line options, shared by
// `trainbench registry` and `compat --from-registry`: the same timeouts, the
// same credential source (environment only, never argv, which other users can
// read in ps) and the same loud --insecure rules everywhere.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>

#include "tb/common/expected.hpp"
#include "tb/registry/registry_client.hpp"

namespace CLI {
class App;
}

namespace tb::cli {

/// The options every registry-using command takes.
struct RegistryOptions {
  bool insecure = false;
  std::string timeout = "60";  ///< total seconds per request, as typed
};

/// Adds --insecure and --registry-timeout to a command.
void addRegistryOptions(CLI::App& command, RegistryOptions& options);

/// A client for the reference's registry. Credentials come from
/// TRAINBENCH_REGISTRY_USERNAME / TRAINBENCH_REGISTRY_PASSWORD. With
/// --insecure (loopback only) a warning goes to `err`.
[[nodiscard]] Expected<std::unique_ptr<registry::RegistryClient>> makeRegistryClient(
    const std::string& registryHost, const RegistryOptions& options, std::ostream& err);

}  // namespace tb::cli
