// The CPU backend has every fused kernel; the CUDA backend has none yet (its
// kernels come with the GPU issue), so on `--device cuda` the whole step runs
// the plain ops, which LibTorch runs on the GPU.
#include "fused/kernel_table.hpp"

namespace tb::engine::fused {

const KernelTable& kernelTable(Device device) {
  static const KernelTable cpuTable{.backend = "cpu",
                                    .missingReason = "",
                                    .rmsNorm = &rmsNorm,
                                    .rope = &rope,
                                    .swiGluGate = &swiGluGate,
                                    .causalAttention = &causalAttention,
                                    .headLoss = &headLoss,
                                    .clippedAdamW = &clippedAdamW};
  static const KernelTable cudaTable{.backend = "cuda", .missingReason = "no CUDA kernel yet"};
  return device == Device::Cuda ? cudaTable : cpuTable;
}

}  // namespace tb::engine::fused
