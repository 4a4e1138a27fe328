// `compat --from-registry`: the verdict judged on what the image itself
// declares instead of what the release notes say. This file only fetches;
// applying the declaration is core/registry's (image_declaration.hpp), which
// the Studio's Image page shares.
#pragma once

#include <iosfwd>
#include <string>

#include "registry_session.hpp"
#include "tb/catalog/catalog.hpp"
#include "tb/registry/image_declaration.hpp"

namespace tb::cli {

/// Inspects `imageText` (REGISTRY/NAME:TAG) and applies the declaration of
/// the platform for `arch` to a copy of `catalogRelease`.
[[nodiscard]] Expected<registry::DeclaredRelease> releaseFromRegistry(
    const catalog::Release& catalogRelease, const std::string& imageText, catalog::CpuArch arch,
    const RegistryOptions& options, std::ostream& err);

}  // namespace tb::cli
