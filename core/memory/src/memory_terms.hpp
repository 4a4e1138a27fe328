// The per-parameter and per-token terms of the predictor, separated from the
// step walk in predictor.cpp so each can be checked on hand-computed cases.
// Every number here is argued in docs/MEMORY.md with its source.
#pragma once

#include <cstdint>

#include "tb/memory/memory_options.hpp"
#include "tb/model/model_config.hpp"

namespace tb::memory::detail {

/// Bytes per parameter of this rank's shard after ZeRO sharding.
struct StateBytes {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
};

[[nodiscard]] StateBytes stateBytesPerParam(Profile profile, const ParallelConfig& parallel);

/// Parameter counts the walk needs.
struct ParamCounts {
  std::int64_t total = 0;
  std::int64_t block = 0;      ///< one decoder block
  std::int64_t embedding = 0;  ///< V·D (the untied head has the same size)
  std::int64_t largestTensor = 0;
};

[[nodiscard]] ParamCounts paramCounts(const model::ModelConfig& model);

/// Saved-for-backward bytes of one block for one micro-batch on one rank,
/// plus the transients of its backward.
struct BlockBytes {
  double kept = 0;           ///< policy none
  double selective = 0;      ///< attention core dropped
  double checkpoint = 0;     ///< only the block input
  double attentionCore = 0;  ///< what selective recomputation rebuilds
  double workspace = 0;      ///< gradient temporaries while differentiating it
  /// The same for a block that is not rebuilt whole, under the policy's
  /// selective modules.
  double selectiveWorkspace = 0;
  double normSaving = 0;   ///< what the layernorm module drops (both norms)
  double normRebuild = 0;  ///< alive while one norm is rebuilt in backward
  double gateSaving = 0;   ///< what the mlp_act module drops
  double gateRebuild = 0;  ///< alive while the gate is rebuilt in backward
  double perOp = 0;        ///< torchtitan's per-op checkpointing (RecomputeKind::Op)
};

/// `gqaInPlace`: the engine's attention reads K and V in place (tuned runtime).
/// `selectiveModules`: the policy's model::RecomputeModule bits, which only
/// selectiveWorkspace depends on.
[[nodiscard]] BlockBytes blockBytes(const model::ModelConfig& model, const ParallelConfig& parallel,
                                    Profile profile, bool gqaInPlace = false,
                                    std::uint8_t selectiveModules = 0);

/// Logits and loss temporaries of one micro-batch on the last stage.
[[nodiscard]] double logitsBytes(const model::ModelConfig& model, const ParallelConfig& parallel,
                                 Profile profile);

/// Activations of the final norm and the embedding lookup (not per block).
[[nodiscard]] double edgeActivationBytes(const model::ModelConfig& model,
                                         const ParallelConfig& parallel, Profile profile);

/// Rows of logits the engine's chunked heads compute at once (fused::headLoss
/// and, for the `head` module, fused::headLossRebuiltInBackward).
inline constexpr std::int64_t kHeadChunkRows = 256;

/// A count as a double, for the byte arithmetic of the terms.
inline double d(std::int64_t value) { return static_cast<double>(value); }

/// Whether the `head` module changes the step: only the engine's plain
/// float32 step (the chunked head's only dtype; the compiled step's fused
/// head is chunked already).
[[nodiscard]] bool headModuleChangesStep(Profile profile, const ParallelConfig& parallel,
                                         bool compile);

/// Whether `input`'s step is the engine's compiled step: --compile on, the
/// engine profile, float32 (the fused kernels' only dtype; otherwise every
/// pattern falls back to the plain op and the plain terms hold).
[[nodiscard]] bool usesCompiledStep(Profile profile, const ParallelConfig& parallel, bool compile);

/// blockBytes for the compiled step: fused norms, RoPE, SwiGLU gate and
/// attention keep their inputs and per-row statistics, not their insides.
[[nodiscard]] BlockBytes compiledBlockBytes(const model::ModelConfig& model,
                                            const ParallelConfig& parallel);

/// logitsBytes for a chunked head (the compiled step's, or the plain step's
/// under the `head` module): one chunk of float32 logits, the row
/// log-sum-exps and the head's two gradients at its backward.
[[nodiscard]] double chunkedHeadBytes(const model::ModelConfig& model,
                                      const ParallelConfig& parallel);

/// edgeActivationBytes for the compiled step (the fused final norm).
[[nodiscard]] double compiledEdgeActivationBytes(const model::ModelConfig& model,
                                                 const ParallelConfig& parallel);

/// Buffers gathered by ZeRO-3 / FSDP (or kept unsharded by FSDP grad-op) on top of shards.
[[nodiscard]] double gatheredWeightBytes(const ParamCounts& counts, const ParallelConfig& parallel,
                                         Profile profile);

/// Optimizer-step temporaries (foreach Adam, the engine's sqrt/div); `flatUpdate`:
/// the engine's plain AdamW over its flat buffers (the tuned runtime's flat gradients).
[[nodiscard]] double optimizerStepBytes(const ParamCounts& counts, std::int64_t shardParams,
                                        const ParallelConfig& parallel, Profile profile,
                                        bool flatUpdate);

/// Fixed framework buffers: token ids, RoPE tables, cuBLAS workspace, DeepSpeed buckets.
[[nodiscard]] double fixedOverheadBytes(const model::ModelConfig& model,
                                        const ParallelConfig& parallel, Profile profile);

/// Fraction of the peak's bytes the caching allocator reserves beyond what
/// tensors hold; 0 for the engine, whose tracker counts requests. Megatron,
/// DeepSpeed and Fsdp apply it to the dynamic bytes (activations, logits,
/// transients), Torchtitan to everything allocated plus the cached blocks
/// below. `compiled`: torch.compile of each block (Torchtitan only).
[[nodiscard]] double allocatorSlackFraction(Profile profile, bool compiled);

/// The torchtitan slack fractions, fitted as docs/MEMORY.md says.
inline constexpr double kTorchtitanCompiledSlack = 0.0712;
inline constexpr double kTorchtitanEagerSlack = 0.1332;

/// Bytes one block keeps for one micro-batch under torchtitan's per-op
/// checkpointing (RecomputeKind::Op); `float8`: torchao's float8 linears.
[[nodiscard]] double opCheckpointBytes(const model::ModelConfig& model,
                                       const ParallelConfig& parallel, bool float8);

/// torchtitan's loss at its backward (and the all-gathered input of a
/// column-parallel output projection), replacing logitsBytes.
[[nodiscard]] double torchtitanLogitsBytes(const model::ModelConfig& model,
                                           const ParallelConfig& parallel,
                                           FrameworkVersion version);

/// Blocks the caching allocator keeps for the sequence-parallel collectives
/// of a block (NCCL's stream), beyond the peak's tensors; 0 without TP.
[[nodiscard]] double collectiveCacheBytes(const model::ModelConfig& model,
                                          const ParallelConfig& parallel);

}  // namespace tb::memory::detail
