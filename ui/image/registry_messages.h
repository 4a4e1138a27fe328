// The panel's sentences in one place: what a failed call means for the user
// (offline, refused, not found, cancelled) and what an inspected image
// declares. Plain functions so the wording is tested without widgets.
#pragma once

#include <QString>

#include "tb/common/expected.hpp"
#include "tb/registry/registry_client.hpp"

namespace tb::ui {

/// One sentence for a failed registry call to `host`. Network failures read
/// as "offline or unreachable" and say the catalog still works.
[[nodiscard]] QString describeRegistryFailure(const QString& host, const tb::Error& error);

/// "linux/amd64: CUDA_VERSION 13.0.2, NVIDIA_REQUIRE_CUDA cuda>=13.0 ..." per
/// platform, one per line, as plain text.
[[nodiscard]] QString describeDeclaration(const tb::registry::ImageInspection& inspection);

}  // namespace tb::ui
