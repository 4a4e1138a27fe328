// `compat --from-registry`: the verdict judged on what the image itself
// declares (its platforms, CUDA_VERSION and CUDA_DRIVER_VERSION) instead of
// what the release notes say. The catalog still supplies what an image cannot
// declare: the forward-compatibility allowances and NVIDIA's tables.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "registry_session.hpp"
#include "tb/catalog/catalog.hpp"

namespace tb::cli {

/// The catalog release overridden by the image's declaration, and notes that
/// say where each value came from and where it differs from the catalog.
struct RegistryDeclaredRelease {
  catalog::Release release;
  std::vector<std::string> notes;
};

/// Inspects `imageText` (REGISTRY/NAME:TAG) and applies the declaration of
/// the platform for `arch` to a copy of `catalogRelease`.
[[nodiscard]] Expected<RegistryDeclaredRelease> releaseFromRegistry(
    const catalog::Release& catalogRelease, const std::string& imageText, catalog::CpuArch arch,
    const RegistryOptions& options, std::ostream& err);

}  // namespace tb::cli
