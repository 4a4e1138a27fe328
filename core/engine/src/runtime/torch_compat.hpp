// Every difference between the LibTorch versions the engine builds against
// (Debian's 1.13 CPU build, upstream 2.x with CUDA) lives here, so the rest of
// the engine is written once.
#pragma once

#include <c10/core/Allocator.h>
#include <torch/version.h>

#include <cstdint>

// LibTorch 2.3 made Allocator::allocate non-const and added the pure virtual
// copy_data (pytorch#120969, #121728).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#define TB_TORCH_ALLOCATOR_V2 1
#define TB_ALLOCATE_CONST
#else
#define TB_TORCH_ALLOCATOR_V2 0
#define TB_ALLOCATE_CONST const
#endif

namespace tb::engine::compat {

/// "1.13.0"-style version of the LibTorch headers compiled against.
inline constexpr const char* kTorchVersion = TORCH_VERSION;

/// Bytes currently allocated and the peak since the last reset on a CUDA
/// device, from the caching allocator; zeros where LibTorch has no CUDA.
struct CudaMemory {
  std::uint64_t liveBytes = 0;
  std::uint64_t peakBytes = 0;
};

CudaMemory cudaMemory(int device);
void resetCudaPeak(int device);

}  // namespace tb::engine::compat
