// Two questions are answered by timing, in the same process, with the same
// threads, just before training: which matrix-product path is fastest on this
// model's own products (the tuned runtime uses it), and what the best rate the
// machine reached was (MFU's denominator; datasheet peaks do not exist for
// arbitrary CPUs). The denominator is the best rate of any path, whichever the
// run uses, so a run on a slower path shows a lower MFU rather than a flattered one.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <string>
#include <vector>

#include "matmul_path.hpp"
#include "tb/engine/model.hpp"

namespace tb::engine {

/// The best rate found and the products that reached it.
struct MatmulRate {
  double gflops = 0.0;
  std::string path;  ///< e.g. "float32 1024x1024" or "onednn on model shapes"
};

/// One candidate path's rate on one step's products of a model, forward and backward.
struct PathRate {
  std::string path;  ///< MatmulPath::name()
  double gflops = 0.0;
};

/// The path a run multiplies on and what the probe measured.
struct MatmulChoice {
  const MatmulPath* path = nullptr;
  std::vector<PathRate> candidates;  ///< every CPU path probed; empty on a GPU
  MatmulRate peak;                   ///< the best rate measured: MFU's denominator
};

/// Times square products of `size` (best of `repeats`, after a warm-up) for
/// each dtype the device offers to training: float32 on the CPU, bf16 and
/// float32 on a GPU.
[[nodiscard]] MatmulRate probeMatmulRate(c10::Device device, std::int64_t size, int repeats);

/// Times each of `paths` on the products of one step of `model`: x
/// [batch·seq, in] · W[out, in]ᵀ for every projection, the SwiGLU matrices and
/// the head, with both gradients, each shape weighted by how often a step runs
/// it. The paths alternate pass by pass; each rate is the best of `repeats`
/// after a warm-up, in the order of `paths`.
[[nodiscard]] std::vector<double> probeModelProducts(const std::vector<const MatmulPath*>& paths,
                                                     const ModelConfig& model, int repeats);

/// On the CPU, probes ATen and oneDNN on the model's products; `pickFastest`
/// (the tuned runtime's matmul switch) takes the faster, otherwise ATen.
/// On a GPU, ATen with the square-product peak.
[[nodiscard]] MatmulChoice chooseMatmulPath(const ModelConfig& model, c10::Device device,
                                            bool pickFastest);

}  // namespace tb::engine
