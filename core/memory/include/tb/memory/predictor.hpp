// The analytic peak-memory model. It walks one training step as the
// framework runs it (forward, the head's backward, each block's backward in
// reverse, the optimizer step), adds up what is alive at each point, and
// reports the largest point with every term named, so a user can see why a
// model does not fit, not only that it does not.
#pragma once

#include <cstdint>
#include <string>

#include "tb/common/expected.hpp"
#include "tb/memory/memory_options.hpp"
#include "tb/model/model_config.hpp"

namespace tb::memory {

/// What is alive at the peak, in bytes, per rank.
struct MemoryBreakdown {
  std::uint64_t weights = 0;  ///< parameters (and gathered shards under ZeRO-3/FSDP)
  std::uint64_t gradients =
      0;  ///< gradient buffers alive at the peak (and a data-parallel copy of them)
  std::uint64_t optimizer = 0;    ///< Adam moments, fp32 master weights, optimizer temporaries
  std::uint64_t activations = 0;  ///< tensors saved for backward by the blocks still waiting
  std::uint64_t logits = 0;       ///< logits and loss temporaries (large for a 128k vocab)
  std::uint64_t recompute = 0;    ///< the transient of recomputing one block in backward
  std::uint64_t workspace = 0;    ///< backward temporaries of the block being differentiated
  std::uint64_t overhead = 0;     ///< framework buffers (cuBLAS workspace, buckets, token rows)
  /// Reserved beyond allocated: what PyTorch's caching allocator holds in its
  /// cache at the peak (blocks freed earlier that the peak's tensors could
  /// not reuse). 0 for the engine, whose tracking allocator counts requests.
  std::uint64_t allocatorCache = 0;

  /// Bytes held by tensors at the peak (torch.cuda.max_memory_allocated).
  [[nodiscard]] std::uint64_t allocated() const {
    return weights + gradients + optimizer + activations + logits + recompute + workspace +
           overhead;
  }
  /// Bytes reserved from the device at the peak (max_memory_reserved): what
  /// decides an out-of-memory.
  [[nodiscard]] std::uint64_t total() const { return allocated() + allocatorCache; }
};

/// Everything a prediction depends on.
struct PredictionInput {
  model::ModelConfig model;
  ParallelConfig parallel;
  RecomputePolicy recompute;
  Profile profile = Profile::Engine;
  /// The engine's compiled step (`trainbench run --compile on`): fused
  /// kernels keep less for backward and the optimizer runs over flat
  /// buffers; in bf16 the engine falls back to the plain ops, and so does
  /// the prediction. Under the torchtitan profile: torch.compile of each
  /// block (fused elementwise kernels leave less in the allocator's cache).
  bool compiledStep = false;
  /// The engine's tuned runtime (AC2, `trainbench run --runtime`):
  /// gradients preallocated in flat buffers live for the whole step, and
  /// grouped-query attention reads K and V in place instead of repeating them.
  /// Both off is the stock runtime. Engine profile only.
  bool flatGradients = false;
  bool gqaInPlace = false;
  /// torchtitan's float8 linears (torchao, dynamic scaling): the products run
  /// as _scaled_mm, which changes what per-op checkpointing keeps.
  /// Torchtitan profile only.
  bool float8 = false;
  /// The framework's code date where it changes the answer (torchtitan's loss).
  FrameworkVersion frameworkVersion = FrameworkVersion::Current;
};

/// Bytes one micro-batch keeps for one block on this rank, by what is kept.
struct LayerActivationBytes {
  std::uint64_t kept = 0;        ///< nothing recomputed
  std::uint64_t selective = 0;   ///< attention core recomputed
  std::uint64_t checkpoint = 0;  ///< block fully recomputed: only its input is kept
};

/// A prediction for the most loaded rank.
struct MemoryPrediction {
  std::int64_t params = 0;            ///< trainable parameters of the whole model
  std::int64_t paramsPerRank = 0;     ///< parameters of the most loaded TP/PP shard
  MemoryBreakdown breakdown;          ///< at the peak
  std::int64_t calibrationBytes = 0;  ///< signed correction from a stored calibration
  std::uint64_t totalBytes = 0;       ///< breakdown.total() + calibrationBytes (reserved)
  std::uint64_t allocatedBytes = 0;   ///< breakdown.allocated(): tensors alone at the peak
  std::string peakPhase;              ///< where the step peaks ("layer 0 backward", ...)
  LayerActivationBytes perLayer;      ///< one block, one micro-batch
  std::int64_t stageLayers = 0;       ///< blocks held by one pipeline stage
  double timeRatio = 1.0;             ///< step time relative to no recomputation
};

/// Predicts the peak; bad shapes, layouts or a K beyond the stage's blocks
/// are BadInput errors that name the value.
[[nodiscard]] Expected<MemoryPrediction> predictMemory(const PredictionInput& input);

/// Step time with `policy` relative to none, from FLOPs: recomputing a block
/// costs one more forward of it; selective costs the attention core's forward.
[[nodiscard]] double relativeStepTime(const PredictionInput& input);

/// The fraction of the peak the profile's caching allocator is taken to
/// reserve beyond its tensors (docs/MEMORY.md); 0 for the engine.
/// `compiled`: torch.compile of each block, for the torchtitan profile.
[[nodiscard]] double allocatorSlack(Profile profile, bool compiled);

}  // namespace tb::memory
