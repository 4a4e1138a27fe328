// Turning `trainbench compat` options into a verdict query: which release the
// --image text names, and which driver, GPU and CPU to judge, each value from
// the command line or, when missing, from host detection. Errors name the
// option and the bad value.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tb/catalog/catalog.hpp"
#include "tb/common/expected.hpp"
#include "tb/compat/host_detection.hpp"
#include "tb/compat/verdict.hpp"

namespace tb::cli {

/// The host options as typed; an empty optional means "not given".
struct HostOptions {
  std::optional<std::string> driver;
  std::optional<std::string> gpu;
  std::optional<std::string> gpuCount;
  std::optional<std::string> arch;
};

/// Where one judged value came from, as JSON and text print it.
enum class ValueOrigin { CommandLine, Detected, NotDetected, System, Default };
[[nodiscard]] std::string_view toString(ValueOrigin origin) noexcept;

/// The host that is judged: the query plus the provenance of its values.
struct JudgedHost {
  compat::CompatQuery query;
  ValueOrigin driverOrigin = ValueOrigin::CommandLine;
  ValueOrigin gpuOrigin = ValueOrigin::CommandLine;
  ValueOrigin gpuCountOrigin = ValueOrigin::CommandLine;
  ValueOrigin archOrigin = ValueOrigin::CommandLine;
  /// Set when detection ran (something was missing on the command line).
  std::optional<compat::HostInfo> detected;
  /// Remarks about how values were combined (mixed GPUs, ...).
  std::vector<std::string> notes;
};

/// Validates the options and fills what is missing from the host. Detection
/// of driver and GPUs runs only when --driver or --gpu is missing.
[[nodiscard]] Expected<JudgedHost> resolveHost(const HostOptions& options);

/// The release an --image value names: "25.04", or an image reference whose
/// tag is "25.04" or "25.04-serverless" (any registry, the catalog's
/// repository name). Unknown tags are NotFound and list the known ones.
[[nodiscard]] Expected<const catalog::Release*> resolveImage(const catalog::Catalog& catalog,
                                                             const std::string& text);

}  // namespace tb::cli
