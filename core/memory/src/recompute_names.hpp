// The recompute policies as the training frameworks name them in their own
// configuration (torchtitan's [activation_checkpoint], Megatron's
// --recompute-* flags, DeepSpeed's activation checkpointing, the Trainer's
// gradient_checkpointing), each mapped onto the predictor's own terms, so a
// user can type what their job file says and see what it is taken to mean.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"
#include "tb/memory/memory_options.hpp"

namespace tb::memory::detail {

/// nullopt when `text` does not start with a framework's prefix; otherwise
/// the policy, or BadInput naming the value and the names that framework has.
[[nodiscard]] std::optional<Expected<RecomputePolicy>> parseFrameworkRecompute(
    std::string_view text);

/// "torchtitan:full|op|every:N, megatron:..., ..." for error messages and help.
[[nodiscard]] std::string frameworkRecomputeNames();

}  // namespace tb::memory::detail
