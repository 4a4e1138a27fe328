// The parts of a decoder that selective recomputation can rebuild in backward
// instead of keeping: three inside every block, named as Megatron-Core's
// `recompute_modules` names them, and the output head,
// which is this engine's own. The engine runs them and the predictor prices
// them, so both read the one spelling here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"

namespace tb::model {

/// Bits of a selective policy; any non-empty combination is a policy.
enum RecomputeModule : std::uint8_t {
  kCoreAttention = 1,  ///< core_attn: scores, softmax and attention x V
  kNorms = 2,          ///< layernorm: both RMSNorms, their outputs included
  kMlpActivation = 4,  ///< mlp_act: the SwiGLU gate silu(w1 x) * w3 x
  /// head: the output head's logits, computed a chunk of rows at a time and
  /// rebuilt in backward (the engine's plain step; not a block's part, so
  /// layers:K+selective:head rebuilds it whatever K is)
  kOutputHead = 8,
};

/// The modules inside a block: with all three a block keeps only its matrix
/// products' outputs.
inline constexpr std::uint8_t kBlockRecomputeModules = kCoreAttention | kNorms | kMlpActivation;
/// Every module at once.
inline constexpr std::uint8_t kAllRecomputeModules = kBlockRecomputeModules | kOutputHead;

/// "core_attn,layernorm,mlp_act,head" (any non-empty subset, any order) as bits;
/// BadInput names an unknown or repeated entry.
[[nodiscard]] Expected<std::uint8_t> parseRecomputeModules(std::string_view list);

/// How `--recompute` spells a selective policy: "selective" for core_attn
/// alone (Megatron's default and the plain spelling), otherwise
/// "selective:" and the modules in the fixed order above.
[[nodiscard]] std::string selectiveSpelling(std::uint8_t modules);

/// `text` as a selective policy ("selective" or "selective:LIST"): its bits,
/// 0 when text is not a selective spelling at all, or BadInput naming a bad list.
[[nodiscard]] Expected<std::uint8_t> parseSelective(std::string_view text);

/// "layers:K+selective[:LIST]" (the first K blocks fully recomputed, the
/// rest selective) split at the '+': the head ("layers:K", left to the
/// caller) and the tail's bits; text without '+' comes back whole with 0 bits.
struct PolicyTail {
  std::string_view head;
  std::uint8_t modules = 0;
};
[[nodiscard]] Expected<PolicyTail> splitSelectiveTail(std::string_view text);

}  // namespace tb::model
