// Activation recomputation as one primitive: run a segment of the forward pass
// without keeping what autograd would save inside it, keep only its inputs,
// and run it again in backward to differentiate it. The decoder wraps a whole
// block (full and layers:K) or only the attention core (selective) with it,
// so every policy is the same math as no recomputation, in a different order.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "tb/engine/run_config.hpp"

namespace tb::engine {

/// What one decoder block keeps for its backward.
enum class BlockRecompute {
  Keep,           ///< everything autograd saves
  AttentionCore,  ///< all but scores, softmax and attention x V, rebuilt in backward
  Block,          ///< only the block input; the whole block is rebuilt in backward
};

/// The per-block layout of a resolved policy (not Auto) for `layers` blocks;
/// layers:K with K past the last block recomputes them all.
[[nodiscard]] std::vector<BlockRecompute> recomputeLayout(const RecomputePolicy& policy,
                                                          std::int64_t layers);

/// A deterministic piece of the forward pass: the same inputs must give the
/// same output when it is run again in backward. Nothing in the decoder draws
/// random numbers (there is no dropout), so no RNG state is saved or restored;
/// a segment that draws them would have to restore the generator first.
using Segment = std::function<at::Tensor(const std::vector<at::Tensor>& inputs)>;

/// segment(inputs), with only `inputs` saved for backward. Gradients reach
/// every input that requires them, weights included, exactly as if segment
/// had run under autograd directly. Under no-grad it simply runs segment.
[[nodiscard]] at::Tensor recomputeInBackward(const Segment& segment,
                                             const std::vector<at::Tensor>& inputs);

}  // namespace tb::engine
