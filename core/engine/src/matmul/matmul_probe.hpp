// Two questions are answered by timing, in the same process, with the same
// threads, just before training: which matrix-product path trains this
// model fastest (the tuned runtime uses it), and what the best rate the
// machine reached was (MFU's denominator; datasheet peaks do not exist for
// arbitrary CPUs). The denominator is the best rate of any path, whichever the
// run uses, so a run on a slower path shows a lower MFU rather than a flattered one.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "matmul/matmul_path.hpp"
#include "tb/engine/model.hpp"

namespace tb::engine {

/// The best rate found and the products that reached it.
struct MatmulRate {
  double gflops = 0.0;
  std::string path;  ///< e.g. "float32 1024x1024" or "onednn on model shapes"
};

/// One candidate path's rate on one step's products of a model, forward and
/// backward, and the time of one decoder block on it (0 where not timed).
struct PathRate {
  std::string path;  ///< MatmulPath::name()
  double gflops = 0.0;
  double blockSeconds = 0.0;
};

/// The path a run multiplies on and what the probe measured.
struct MatmulChoice {
  const MatmulPath* path = nullptr;
  std::vector<PathRate> candidates;  ///< every CPU path probed; empty on a GPU
  MatmulRate peak;                   ///< the best rate measured: MFU's denominator
};

/// Gives the process the threads a run on `path` would compute with.
using ArrangeThreads = std::function<void(const MatmulPath& path)>;
/// Seconds of one forward and backward of one decoder block as the run
/// computes it, with its products on `path`.
using TimeBlock = std::function<double(const MatmulPath& path)>;

/// How the CPU paths race when each would train in other threads. The tuned
/// runtime gives the pool to the library that runs the products, so ATen's
/// path leaves every other operator of the step one thread: the products
/// alone then misjudge the step, and `timeBlock` times what the step runs.
struct PathRace {
  ArrangeThreads arrange;  ///< empty: every path computes in the threads as they are
  TimeBlock timeBlock;     ///< empty: the products' rate decides
  std::string variant;     ///< what else sets the block's time (its operators), for the cache
};

/// Times square products of `size` (best of `repeats`, after a warm-up) for
/// each dtype the device offers to training: float32 on the CPU, bf16 and
/// float32 on a GPU.
[[nodiscard]] MatmulRate probeMatmulRate(c10::Device device, std::int64_t size, int repeats);

/// Times each of `paths` on the products of one step of `model`: x
/// [batch·seq, in] · W[out, in]ᵀ for every projection, the SwiGLU matrices and
/// the head, with both gradients, each shape weighted by how often a step runs
/// it. The paths alternate pass by pass; each rate is the best of `repeats`
/// after a warm-up, in the order of `paths`. With `arrange`, each path's
/// passes run in the threads it would train with, each after an untimed pass
/// in them (see matmul_probe.cpp).
[[nodiscard]] std::vector<double> probeModelProducts(const std::vector<const MatmulPath*>& paths,
                                                     const ModelConfig& model, int repeats,
                                                     const ArrangeThreads& arrange = {});

/// The path `candidates` (ATen's and oneDNN's, as the probe measured them)
/// say a tuned run trains fastest on. Without block times, the faster
/// products. With them, ATen only where it wins both races: its path leaves
/// the step's other operators one thread, which the products do not see and
/// one block sees only in part, so where the two disagree the measurements
/// are noise and oneDNN, which keeps the pool whole, is the safer choice.
[[nodiscard]] std::string fastestPath(const std::vector<PathRate>& candidates);

/// On the CPU, probes ATen and oneDNN on the model's products (and, with
/// `race.timeBlock`, on one block); `pickFastest` (the tuned runtime's matmul
/// switch) takes fastestPath's choice, otherwise ATen. On a GPU, ATen with
/// the square-product peak. The threads are left as the probe left them: the
/// caller arranges them for the choice.
[[nodiscard]] MatmulChoice chooseMatmulPath(const ModelConfig& model, c10::Device device,
                                            bool pickFastest, const PathRace& race = {});

}  // namespace tb::engine
