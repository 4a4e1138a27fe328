// The knobs a memory prediction depends on besides the model's shape: which
// framework's habits to model (profile), the training dtype, the parallel
// layout and the recompute policy. They are plain values with parsers that
// name a bad value, so the CLI, the GUI and the run store share one spelling.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"
#include "tb/model/recompute_modules.hpp"

namespace tb::memory {

/// Whose memory is predicted: the embedded engine, or a cluster framework's
/// peak *reserved* memory (what decides an out-of-memory on a GPU). Fsdp is
/// FSDP as the Hugging Face Trainer and accelerate run it; Torchtitan is
/// FSDP2 with TP, PP and context parallelism as pytorch/torchtitan runs it
/// (the profile the measured H100 peaks are checked against).
enum class Profile { Engine, Megatron, DeepSpeed, Fsdp, Torchtitan };

/// Training precision: fp32 everywhere, or 16-bit compute with fp32 master state.
enum class DType { Fp32, Bf16, Fp16 };

/// Which activations are recomputed in backward instead of kept.
enum class RecomputeKind {
  None,       ///< keep everything autograd saves
  Selective,  ///< recompute parts of every block (`modules`; plain: the attention core)
  Layers,     ///< the first `layers` blocks fully recomputed, the rest keep everything
  Full,       ///< every block recomputed (gradient_checkpointing=True)
  /// torchtitan's per-op selective checkpointing (`selective_ac_option =
  /// "op"`): in every block the outputs of every other matrix product (wq,
  /// wv, w1, w2) and of attention are kept, everything else is rebuilt
  Op,
  /// torchtitan's `selective_ac_option = "N"`: blocks 0, N, 2N, ... fully
  /// recomputed, the others keep everything (`layers` holds N)
  Every,
  /// Megatron's `--recompute-method uniform --recompute-num-layers N`: the
  /// blocks in chunks of N, only each chunk's input kept, a whole chunk
  /// rebuilt at once in backward (`layers` holds N)
  Uniform,
};

/// A recompute policy as `--recompute` spells it
/// (none|selective|selective:MODULES|full|layers:K).
struct RecomputePolicy {
  RecomputeKind kind = RecomputeKind::None;
  std::int64_t layers = 0;  ///< K for Layers, N for Every and Uniform
  /// model::RecomputeModule bits rebuilt in every block (Selective; 0 reads
  /// as core_attn, the plain spelling) or in the blocks past K (Layers).
  std::uint8_t modules = 0;

  friend bool operator==(const RecomputePolicy&, const RecomputePolicy&) = default;
};

/// The modules a block that is not fully recomputed rebuilds under `policy`.
[[nodiscard]] std::uint8_t selectiveModules(const RecomputePolicy& policy);

/// Data, tensor and pipeline parallel layout of one training job.
struct ParallelConfig {
  std::int64_t dp = 1;            ///< data-parallel ranks (ZeRO shards over these)
  std::int64_t tp = 1;            ///< tensor-parallel ranks
  std::int64_t pp = 1;            ///< pipeline stages (1F1B schedule)
  int zero = 0;                   ///< ZeRO stage 0..3 (FSDP: 3 full shard, 2 grad-op)
  bool sequenceParallel = false;  ///< Megatron SP: norm/residual activations split over TP
  bool flashAttention = false;    ///< attention scores never stored (cluster profiles)
  DType dtype = DType::Fp32;
  /// Context-parallel ranks: each holds seq/cp tokens of every sequence, and
  /// FSDP shards over dp x cp (torchtitan's dp_shard x cp mesh)
  std::int64_t cp = 1;
  /// torchtitan's async TP (symmetric-memory all-gather matmuls): the
  /// sequence-parallel collectives' buffers leave the caching allocator
  bool asyncTp = false;

  friend bool operator==(const ParallelConfig&, const ParallelConfig&) = default;
};

/// The framework's code as of a date, where a version changes the answer
/// (torchtitan: the loss, not compiled in Dec 2024, compiled from mid-2025).
enum class FrameworkVersion { Current, Dec2024, Mid2025 };

[[nodiscard]] Expected<Profile> parseProfile(std::string_view text);
/// 2024-12, 2025-06 or current (the newest this predictor models, 2025-06).
[[nodiscard]] Expected<FrameworkVersion> parseFrameworkVersion(std::string_view text);
[[nodiscard]] std::string toString(FrameworkVersion version);
[[nodiscard]] Expected<DType> parseDType(std::string_view text);
/// Parses none|selective|selective:MODULES|full|layers:K|op|every:N|uniform:N,
/// and the frameworks' own names (recompute_names.cpp: torchtitan:...,
/// megatron:..., deepspeed:..., hf:...); K and N are checked against the
/// model later.
[[nodiscard]] Expected<RecomputePolicy> parseRecompute(std::string_view text);
/// What the embedded engine trains with (`trainbench run --recompute`): auto
/// (nullopt: the engine picks at start against its memory budget), or any
/// policy parseRecompute reads that the engine's blocks can run. op, every:N
/// and uniform:N (and the framework names meaning them) are refused by name.
[[nodiscard]] Expected<std::optional<RecomputePolicy>> parseEngineRecompute(std::string_view text);

/// What a framework-named policy means in the predictor's terms, in one
/// line ("torchtitan:op = op: ..."); empty for the predictor's own spellings.
[[nodiscard]] std::string recomputeMapping(std::string_view text);

/// How `profile`'s framework is told to run `policy`, in its own settings
/// (torchtitan's [activation_checkpoint], Megatron's --recompute-* flags);
/// empty where that framework has no such policy or `profile` is the engine.
[[nodiscard]] std::string frameworkSpelling(Profile profile, const RecomputePolicy& policy);

[[nodiscard]] std::string toString(Profile profile);
[[nodiscard]] std::string toString(DType dtype);
[[nodiscard]] std::string toString(const RecomputePolicy& policy);

/// Checks ranks (>= 1) and the ZeRO stage (0..3); the error names the value.
[[nodiscard]] Status validate(const ParallelConfig& parallel);

/// Bytes of one element of `dtype`.
[[nodiscard]] std::int64_t bytesOf(DType dtype);

}  // namespace tb::memory
