// The GPU side of data parallelism. Debian's LibTorch has no
// ProcessGroupNCCL, so this calls NCCL's own API (the CUDA toolkit's nccl.h
// and libnccl), built only with TB_WITH_NCCL (core/engine/CMakeLists.txt).
#pragma once

#include <memory>
#include <string>

#include "distributed/c10d_communicator.hpp"

namespace tb::engine {

/// Whether this build carries the NCCL communicator.
[[nodiscard]] bool ncclBuilt();
/// The NCCL library's own version ("2.27.3"), empty where none is built.
[[nodiscard]] std::string ncclVersion();

/// Joins the group with Gloo for the store and host tensors and an NCCL
/// communicator on the GPU of this worker's local rank for device tensors.
/// Rank 0 makes the NCCL unique id and passes it through the store; the
/// communicator is non-blocking, every wait polls for asynchronous errors
/// up to the deadline, and a watchdog aborts it on the first error. Without
/// a CUDA device, or in a build without NCCL, a Runtime error says so.
[[nodiscard]] Expected<std::unique_ptr<Communicator>> joinNcclGroup(const GroupSettings& settings);

}  // namespace tb::engine
