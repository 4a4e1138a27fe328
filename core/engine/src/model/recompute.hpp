// Activation recomputation. recomputeInBackward runs a segment of the forward
// pass without keeping what autograd would save inside it, keeps only its
// inputs, and runs it again in backward to differentiate it; the decoder wraps
// a whole block (full, layers:K) with it, and the attention core where no
// cheaper rebuild exists. groupedAttentionRebuiltInBackward is that cheaper
// rebuild for the grouped attention core: the probabilities only.
// linearsOfRecomputedInput is for a cheap prologue (a norm, the SwiGLU gate)
// in front of matrix products: the products would keep the prologue's output
// for their weight gradients, so it is dropped and rebuilt in backward, while
// the products themselves are not run again. Every policy is the same math as
// no recomputation, in a different order.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "matmul/matmul_path.hpp"
#include "tb/engine/run_config.hpp"

namespace tb::engine {

/// What one decoder block keeps for its backward.
struct BlockRecompute {
  /// Only the block input: the whole block is rebuilt in backward.
  bool wholeBlock = false;
  /// Otherwise the parts rebuilt in backward (model::RecomputeModule bits;
  /// 0 keeps everything autograd saves).
  std::uint8_t modules = 0;

  friend bool operator==(const BlockRecompute&, const BlockRecompute&) = default;
};

/// The per-block layout of a resolved policy (not Auto) for `layers` blocks;
/// layers:K with K past the last block recomputes them all.
[[nodiscard]] std::vector<BlockRecompute> recomputeLayout(const RecomputePolicy& policy,
                                                          std::int64_t layers);

/// Whether `policy` (resolved, not Auto) rebuilds the output head's logits in
/// backward: the `head` module, which no block layout carries.
[[nodiscard]] bool rebuildsHead(const RecomputePolicy& policy);

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

/// ops::causalAttentionGrouped(q, k, v), keeping only q, k and v for backward.
/// Backward rebuilds the probabilities (the scores product and the softmax)
/// and forms the weighted sum's gradients from them directly, so that product
/// is not run again: what recomputeInBackward around the same function would
/// give, with one product less.
[[nodiscard]] at::Tensor groupedAttentionRebuiltInBackward(const at::Tensor& q, const at::Tensor& k,
                                                           const at::Tensor& v);

/// path.linear(x, weights[i], biases[i]) for every i (biases[i] may be
/// undefined or missing): the products as plain autograd runs them.
[[nodiscard]] std::vector<at::Tensor> productsOf(const MatmulPath& path, const at::Tensor& x,
                                                 const std::vector<at::Tensor>& weights,
                                                 const std::vector<at::Tensor>& biases);

/// path.linear(prologue(inputs), weights[i], biases[i]) for every i, keeping
/// for backward only `inputs` and the weights. In backward the prologue runs
/// again under autograd and the products' gradients are formed directly on
/// `path` (MatmulPath::linearGradients), so the products run once as in plain
/// training. biases[i] may be undefined; `path` must outlive the graph.
[[nodiscard]] std::vector<at::Tensor> linearsOfRecomputedInput(
    const MatmulPath& path, const Segment& prologue, const std::vector<at::Tensor>& inputs,
    const std::vector<at::Tensor>& weights, const std::vector<at::Tensor>& biases);

}  // namespace tb::engine
