// MFU needs a peak to divide by. Datasheet peaks do not exist for arbitrary
// CPUs, so the engine measures the best matrix-product rate it can reach in
// the same process, with the same threads, just before training.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <string>

namespace tb::engine {

/// The best rate found and the path that reached it.
struct MatmulRate {
  double gflops = 0.0;
  std::string path;  ///< e.g. "float32 1024x1024"
};

/// Times square products of `size` (best of `repeats`, after a warm-up) for
/// each dtype the device offers to training: float32 on the CPU, bf16 and
/// float32 on a GPU.
[[nodiscard]] MatmulRate probeMatmulRate(c10::Device device, std::int64_t size, int repeats);

}  // namespace tb::engine
