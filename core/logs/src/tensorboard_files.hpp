// Which event files make up one TensorBoard run, in the order they are read:
// the file named, or every events.out.tfevents.* under the folder named.
// Free of protobuf: it looks at names and folders only.
#pragma once

#include <filesystem>
#include <vector>

#include "tb/common/expected.hpp"

namespace tb::logs::detail::tensorboard {

/// The files of one run: `path` itself, or every events.out.tfevents.* under
/// the folder `path`, where a rank_<r>/ layout contributes its lowest rank
/// only, in order of the time in their names (then of their paths).
[[nodiscard]] Expected<std::vector<std::filesystem::path>> eventFiles(
    const std::filesystem::path& path);

}  // namespace tb::logs::detail::tensorboard
