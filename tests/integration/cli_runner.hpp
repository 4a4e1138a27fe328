// Runs the built trainbench binary for the integration tests. Every run is
// hermetic by default: host detection sees no NVML, no nvidia-smi and no
// /proc driver file, so results do not depend on the machine running the
// tests (a GPU host included). Tests that simulate a host override those.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace tb::cli::test {

/// What one run of the CLI produced.
struct CliRun {
  int exitCode = -1;
  std::string out;
  std::string err;
};

/// Runs `trainbench args...`; `environment` is laid over the hermetic one and
/// the variables named in `unset` are removed from it.
CliRun runCli(const std::vector<std::string>& args,
              const std::map<std::string, std::string>& environment = {},
              const std::vector<std::string>& unset = {});

/// A file under tests/data/cli/.
std::string fixture(const std::string& name);

/// Environment for a host whose nvidia-smi is the given fixture script.
std::map<std::string, std::string> fakeSmiHost(const std::string& script);

/// Parses stdout as exactly one JSON document; trailing text fails the test
/// (nlohmann::json::parse refuses it) and yields a discarded value.
nlohmann::json parseSingleDocument(const CliRun& run);

/// A loopback TCP port nobody listens on now (the kernel's choice, released).
int freeLoopbackPort();

/// The tags of the built-in catalog, as resources/catalog fixes them.
const std::vector<std::string>& builtinTags();

}  // namespace tb::cli::test
