// What an image declares about itself (its platforms, and per platform the
// CUDA_VERSION, CUDA_DRIVER_VERSION and NVIDIA_REQUIRE_CUDA of its config's
// Env) applied to the catalog's release, so that a compatibility verdict can
// be judged on the image rather than its release notes. `trainbench compat
// --from-registry` and the Image page's "Check this tag" both call this; the
// catalog still supplies what an image cannot declare: forward-compatibility
// allowances and NVIDIA's branch tables.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/catalog/catalog.hpp"
#include "tb/registry/registry_client.hpp"

namespace tb::registry {

/// A catalog release with the image's declaration applied, and notes that
/// say where each value came from and where it differs from the catalog.
struct DeclaredRelease {
  catalog::Release release;
  std::vector<std::string> notes;
};

/// The catalog release a registry tag is: the one whose image reference
/// carries that tag, else the one whose tag starts it ("25.10" for
/// "25.10-serverless"); nullptr when the catalog has none.
[[nodiscard]] const catalog::Release* catalogReleaseForTag(const catalog::Catalog& catalog,
                                                           std::string_view registryTag);

/// Applies the declaration of the linux platform for `arch` to a copy of
/// `catalogRelease`, or to an otherwise empty release named `registryTag`
/// when it is nullptr. The image's platforms replace the release's
/// architectures; a value the image does not declare keeps the catalog's.
[[nodiscard]] DeclaredRelease applyDeclaration(const catalog::Release* catalogRelease,
                                               const ImageInspection& inspection,
                                               std::string_view registryTag, catalog::CpuArch arch);

/// The driver branch CUDA_DRIVER_VERSION names ("580.95.05" -> 580); none
/// when it is missing or not a driver version.
[[nodiscard]] std::optional<int> declaredDriverMajor(const ImageConfig& config);

}  // namespace tb::registry
