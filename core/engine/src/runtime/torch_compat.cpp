// CUDA memory statistics exist only where LibTorch was built with CUDA; the
// CMake file defines TB_TORCH_CUDA then, and a CPU build reports zeros.
#include "runtime/torch_compat.hpp"

#if TB_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace tb::engine::compat {

#if TB_TORCH_CUDA
namespace allocator = c10::cuda::CUDACachingAllocator;

// Index 0 is StatType::AGGREGATE in every version; the enum itself moved
// between namespaces in 2.5.
CudaMemory cudaMemory(int device) {
  const auto stats = allocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
  return {static_cast<std::uint64_t>(stats.allocated_bytes[0].current),
          static_cast<std::uint64_t>(stats.allocated_bytes[0].peak)};
}

void resetCudaPeak(int device) { allocator::resetPeakStats(static_cast<c10::DeviceIndex>(device)); }
#else
CudaMemory cudaMemory(int /*device*/) { return {}; }
void resetCudaPeak(int /*device*/) {}
#endif

}  // namespace tb::engine::compat
