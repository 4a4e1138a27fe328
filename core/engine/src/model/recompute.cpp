// A torch::autograd::Function whose forward runs with grad disabled (so the
// segment's intermediates die at once) and whose backward rebuilds the
// segment under grad mode from detached copies of its saved inputs and
// differentiates that local graph with autograd::grad. Using grad, not
// backward, keeps the rebuilt graph private: the gradients of weights come
// back as ordinary gradient outputs and accumulate in the outer graph the
// same way as without recomputation.
//
// AutogradContext keeps only IValues; a capsule is the IValue that carries a
// plain C++ object (here the segment) without registering a TorchScript class.
//
// RecomputedInputLinears is the same idea for a prologue in front of matrix
// products: its backward rebuilds the prologue and hands the products'
// gradients to the MatmulPath directly, since autograd can differentiate a
// product only by running it again. RebuiltGroupedAttention does the same for
// the attention core's weighted sum: it rebuilds the probabilities and forms
// the sum's gradients from them.
#include "model/recompute.hpp"

#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "ops/ops.hpp"

namespace tb::engine {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// Detached copies of the first `count` saved inputs to run a segment again
/// on: those that required gradients require them again, and are listed
/// with their positions for autograd::grad.
struct RebuiltInputs {
  std::vector<at::Tensor> all;
  std::vector<at::Tensor> differentiable;
  std::vector<std::size_t> differentiableIndex;
};

RebuiltInputs rebuildInputs(const variable_list& saved, std::size_t count) {
  RebuiltInputs rebuilt;
  rebuilt.all.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    at::Tensor input = saved[i].detach();
    if (saved[i].requires_grad()) {
      input.requires_grad_(true);
      rebuilt.differentiable.push_back(input);
      rebuilt.differentiableIndex.push_back(i);
    }
    rebuilt.all.push_back(std::move(input));
  }
  return rebuilt;
}

struct SegmentHolder final : torch::CustomClassHolder {
  explicit SegmentHolder(Segment function) : segment(std::move(function)) {}
  Segment segment;
};

class RecomputedSegment final : public torch::autograd::Function<RecomputedSegment> {
 public:
  static at::Tensor forward(AutogradContext* context,
                            const c10::intrusive_ptr<SegmentHolder>& holder,
                            at::TensorList inputs) {
    // Function::apply runs this with grad disabled: nothing inside is saved.
    context->save_for_backward(inputs.vec());
    context->saved_data["segment"] = c10::IValue::make_capsule(holder);
    return holder->segment(inputs.vec());
  }

  static variable_list backward(AutogradContext* context, variable_list outputGrads) {
    const auto holder = c10::static_intrusive_pointer_cast<SegmentHolder>(
        context->saved_data["segment"].toCapsule());
    const variable_list saved = context->get_saved_variables();

    auto [rebuiltInputs, differentiable, differentiableIndex] = rebuildInputs(saved, saved.size());

    // One slot for the holder (not a tensor), then one per input.
    variable_list grads(saved.size() + 1);
    if (differentiable.empty()) return grads;
    at::Tensor output;
    {
      at::AutoGradMode enable(true);
      output = holder->segment(rebuiltInputs);
    }
    const variable_list inputGrads =
        torch::autograd::grad({output}, differentiable, {outputGrads.at(0)},
                              /*retain_graph=*/false, /*create_graph=*/false,
                              /*allow_unused=*/true);
    for (std::size_t j = 0; j < inputGrads.size(); ++j) {
      grads[differentiableIndex[j] + 1] = inputGrads[j];
    }
    return grads;
  }
};

struct LinearsHolder final : torch::CustomClassHolder {
  LinearsHolder(const MatmulPath& matmulPath, Segment function)
      : path(&matmulPath), prologue(std::move(function)) {}
  const MatmulPath* path;
  Segment prologue;
  std::size_t inputCount = 0;
  /// One entry per product: the index of its bias in the flat tensor list, or -1.
  std::vector<std::int64_t> biasAt;
};

// The tensors arrive as one flat list (inputs, weights, defined biases) because
// LibTorch 1.13's Function::apply rejects undefined tensors.
class RecomputedInputLinears final : public torch::autograd::Function<RecomputedInputLinears> {
 public:
  static variable_list forward(AutogradContext* context,
                               const c10::intrusive_ptr<LinearsHolder>& holder,
                               at::TensorList tensors) {
    context->save_for_backward(tensors.vec());
    context->saved_data["linears"] = c10::IValue::make_capsule(holder);
    const std::vector<at::Tensor> inputs(
        tensors.begin(), tensors.begin() + static_cast<std::ptrdiff_t>(holder->inputCount));
    const at::Tensor prologue = holder->prologue(inputs);
    variable_list outputs;
    for (std::size_t i = 0; i < holder->biasAt.size(); ++i) {
      const std::int64_t bias = holder->biasAt[i];
      outputs.push_back(
          holder->path->linear(prologue, tensors[holder->inputCount + i],
                               bias >= 0 ? tensors[static_cast<std::size_t>(bias)] : at::Tensor()));
    }
    return outputs;
  }

  static variable_list backward(AutogradContext* context, variable_list outputGrads) {
    const auto holder = c10::static_intrusive_pointer_cast<LinearsHolder>(
        context->saved_data["linears"].toCapsule());
    const variable_list saved = context->get_saved_variables();
    variable_list grads(saved.size() + 1);  // the holder's slot, then one per tensor

    auto [rebuiltInputs, differentiable, differentiableIndex] =
        rebuildInputs(saved, holder->inputCount);
    at::Tensor prologue;
    {
      at::AutoGradMode enable(!differentiable.empty());
      prologue = holder->prologue(rebuiltInputs);
    }
    const at::Tensor values = prologue.detach();
    at::Tensor prologueGrad;
    for (std::size_t i = 0; i < holder->biasAt.size(); ++i) {
      if (!outputGrads[i].defined()) continue;
      const std::int64_t bias = holder->biasAt[i];
      const std::size_t weightAt = holder->inputCount + i;
      LinearGradients product =
          holder->path->linearGradients(outputGrads[i], values, saved[weightAt], bias >= 0);
      if (saved[weightAt].requires_grad()) grads[weightAt + 1] = std::move(product.weight);
      if (bias >= 0 && saved[static_cast<std::size_t>(bias)].requires_grad()) {
        grads[static_cast<std::size_t>(bias) + 1] = std::move(product.bias);
      }
      prologueGrad =
          prologueGrad.defined() ? prologueGrad.add_(product.input) : std::move(product.input);
    }
    if (differentiable.empty() || !prologueGrad.defined()) return grads;
    const variable_list inputGrads =
        torch::autograd::grad({prologue}, differentiable, {prologueGrad},
                              /*retain_graph=*/false, /*create_graph=*/false,
                              /*allow_unused=*/true);
    for (std::size_t j = 0; j < inputGrads.size(); ++j) {
      grads[differentiableIndex[j] + 1] = inputGrads[j];
    }
    return grads;
  }
};

/// Grouped attention that keeps q, k and v and rebuilds only the
/// probabilities P in backward; the weighted sum is not run again, since its
/// gradients need P and V, never the sum itself. The rest of backward is
/// written out rather than left to autograd, so that it works in place on one
/// [B, KV, G·T, T] buffer beside P (autograd would keep its incoming gradient
/// alive through the whole call). With Q̃ = Q/sqrt(hd), the queries the
/// scores are a product of:
///   dP = dO·Vᵀ,  dS = P ⊙ (dP − Σ_row dP ⊙ P)  (softmax; masked entries have
///   P = 0),  dQ = dS·K / sqrt(hd),  dK = dSᵀ·Q̃,  dV = Pᵀ·dO.
class RebuiltGroupedAttention final : public torch::autograd::Function<RebuiltGroupedAttention> {
 public:
  static at::Tensor forward(AutogradContext* context, const at::Tensor& q, const at::Tensor& k,
                            const at::Tensor& v) {
    context->save_for_backward({q, k, v});
    return ops::causalAttentionGrouped(q, k, v);
  }

  static variable_list backward(AutogradContext* context, variable_list outputGrads) {
    variable_list grads(3);
    if (!outputGrads[0].defined()) return grads;
    const at::NoGradGuard noGrad;  // nothing here is differentiated again
    const variable_list saved = context->get_saved_variables();
    const at::Tensor& q = saved[0];
    const at::Tensor& k = saved[1];
    const at::Tensor& v = saved[2];
    const auto headDim = q.size(3);
    const auto kvHeads = k.size(2);
    // Queries and the output gradient in the products' layout [B, KV, G·T, hd];
    // keys and values as [B, KV, T, hd] views. The scaled queries are built
    // once, for P and for dK.
    const at::Tensor keys = k.transpose(1, 2);
    const at::Tensor values = v.transpose(1, 2);
    const at::Tensor dOut = ops::toGroupedRows(outputGrads[0], kvHeads, headDim);
    const at::Tensor queries = ops::scaledGroupedQueries(q, kvHeads);
    const at::Tensor probabilities = ops::groupedAttentionWeightsOf(queries, k, q.scalar_type());

    if (context->needs_input_grad(2)) {
      grads[2] = at::matmul(probabilities.transpose(-2, -1), dOut).transpose(1, 2).contiguous();
    }
    if (!context->needs_input_grad(0) && !context->needs_input_grad(1)) return grads;
    // The softmax's backward in at least float32, as ops::groupedAttentionWeights
    // runs its forward (a no-op for float32 training). ATen's kernel goes row
    // by row, reading each row's dP and P for the row sum and then writing dS
    // over the dP it has read, so the gradient can take dP's place: one read
    // of the buffer pair instead of the four passes of writing it out by hand.
    const auto softmaxType = at::promote_types(q.scalar_type(), at::kFloat);
    const at::Tensor p = probabilities.to(softmaxType);
    at::Tensor dScores = at::matmul(dOut, values.transpose(-2, -1)).to(softmaxType);
    at::_softmax_backward_data_out(dScores, dScores, p, -1, softmaxType);
    dScores = dScores.to(q.scalar_type());
    if (context->needs_input_grad(0)) {
      const at::Tensor dQueries =
          at::matmul(dScores, keys).mul_(1.0 / std::sqrt(static_cast<double>(headDim)));
      grads[0] = ops::fromGroupedRows(dQueries, q.size(1));
    }
    if (context->needs_input_grad(1)) {
      grads[1] = at::matmul(dScores.transpose(-2, -1), queries).transpose(1, 2).contiguous();
    }
    return grads;
  }
};

}  // namespace

std::vector<BlockRecompute> recomputeLayout(const RecomputePolicy& policy, std::int64_t layers) {
  std::vector<BlockRecompute> layout(static_cast<std::size_t>(std::max<std::int64_t>(layers, 0)));
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const auto layer = static_cast<std::int64_t>(i);
    switch (policy.mode) {
      case RecomputeMode::Full: layout[i].wholeBlock = true; break;
      case RecomputeMode::Layers: layout[i].wholeBlock = layer < policy.layers; break;
      case RecomputeMode::Selective:
      case RecomputeMode::None:
      case RecomputeMode::Auto: break;
    }
    if (!layout[i].wholeBlock) {
      layout[i].modules = selectiveModules(policy) & model::kBlockRecomputeModules;
    }
  }
  return layout;
}

bool rebuildsHead(const RecomputePolicy& policy) {
  return (selectiveModules(policy) & model::kOutputHead) != 0;
}

at::Tensor recomputeInBackward(const Segment& segment, const std::vector<at::Tensor>& inputs) {
  if (!at::GradMode::is_enabled()) return segment(inputs);
  const auto holder = c10::make_intrusive<SegmentHolder>(segment);
  return RecomputedSegment::apply(holder, at::TensorList(inputs));
}

at::Tensor groupedAttentionRebuiltInBackward(const at::Tensor& q, const at::Tensor& k,
                                             const at::Tensor& v) {
  if (!at::GradMode::is_enabled()) return ops::causalAttentionGrouped(q, k, v);
  return RebuiltGroupedAttention::apply(q, k, v);
}

std::vector<at::Tensor> productsOf(const MatmulPath& path, const at::Tensor& x,
                                   const std::vector<at::Tensor>& weights,
                                   const std::vector<at::Tensor>& biases) {
  std::vector<at::Tensor> outputs;
  outputs.reserve(weights.size());
  for (std::size_t i = 0; i < weights.size(); ++i) {
    outputs.push_back(path.linear(x, weights[i], i < biases.size() ? biases[i] : at::Tensor()));
  }
  return outputs;
}

std::vector<at::Tensor> linearsOfRecomputedInput(const MatmulPath& path, const Segment& prologue,
                                                 const std::vector<at::Tensor>& inputs,
                                                 const std::vector<at::Tensor>& weights,
                                                 const std::vector<at::Tensor>& biases) {
  if (!at::GradMode::is_enabled()) return productsOf(path, prologue(inputs), weights, biases);
  const auto holder = c10::make_intrusive<LinearsHolder>(path, prologue);
  holder->inputCount = inputs.size();
  std::vector<at::Tensor> tensors = inputs;
  tensors.insert(tensors.end(), weights.begin(), weights.end());
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const bool hasBias = i < biases.size() && biases[i].defined();
    holder->biasAt.push_back(hasBias ? static_cast<std::int64_t>(tensors.size()) : -1);
    if (hasBias) tensors.push_back(biases[i]);
  }
  return RecomputedInputLinears::apply(holder, at::TensorList(tensors));
}

}  // namespace tb::engine
