// "Check this tag": the verdict judged on what the image itself declares
// (its platforms, CUDA_VERSION, CUDA_DRIVER_VERSION) instead of the release
// notes, as `trainbench compat --from-registry` does. The catalog still
// supplies what an image cannot declare: forward-compatibility allowances
// and NVIDIA's branch tables.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/catalog/catalog.hpp"
#include "tb/registry/registry_client.hpp"

namespace tb::ui {

/// A catalog release with the image's declaration applied, and notes that
/// say where each value came from and where it differs from the catalog.
struct DeclaredRelease {
  tb::catalog::Release release;
  std::vector<std::string> notes;
};

/// The catalog release a registry tag is: the one whose image reference
/// carries that tag, else the one whose tag starts it ("25.10" for
/// "25.10-serverless"); nullptr when the catalog has none.
[[nodiscard]] const tb::catalog::Release* catalogReleaseForTag(const tb::catalog::Catalog& catalog,
                                                               std::string_view registryTag);

/// Applies the declaration of the platform for `arch` to a copy of
/// `catalogRelease` (or to an otherwise empty release when it is nullptr).
[[nodiscard]] DeclaredRelease applyDeclaration(const tb::catalog::Release* catalogRelease,
                                               const tb::registry::ImageInspection& inspection,
                                               std::string_view registryTag,
                                               tb::catalog::CpuArch arch);

/// The driver branch CUDA_DRIVER_VERSION names ("580.95.05" -> 580).
[[nodiscard]] std::optional<int> declaredDriverMajor(const tb::registry::ImageConfig& config);

}  // namespace tb::ui
