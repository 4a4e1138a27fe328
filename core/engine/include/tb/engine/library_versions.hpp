// The libraries the training engine runs on, as `trainbench --version` and
// the run records name them.
#pragma once

#include <vector>

#include "tb/common/build_info.hpp"

namespace tb::engine {

/// LibTorch, oneDNN (where the engine calls it), the BLAS LibTorch loaded with
/// the kernel family it picked for this CPU, and NCCL (where built), each as
/// the library reports itself at run time.
[[nodiscard]] std::vector<ComponentVersion> engineLibraryVersions();

}  // namespace tb::engine
