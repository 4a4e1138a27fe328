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
#include "recompute.hpp"

#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <utility>

namespace tb::engine {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

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

    std::vector<at::Tensor> rebuiltInputs;
    std::vector<at::Tensor> differentiable;
    std::vector<std::size_t> differentiableIndex;
    rebuiltInputs.reserve(saved.size());
    for (std::size_t i = 0; i < saved.size(); ++i) {
      at::Tensor input = saved[i].detach();
      if (saved[i].requires_grad()) {
        input.requires_grad_(true);
        differentiable.push_back(input);
        differentiableIndex.push_back(i);
      }
      rebuiltInputs.push_back(std::move(input));
    }

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

}  // namespace

std::vector<BlockRecompute> recomputeLayout(const RecomputePolicy& policy, std::int64_t layers) {
  std::vector<BlockRecompute> layout(static_cast<std::size_t>(std::max<std::int64_t>(layers, 0)),
                                     BlockRecompute::Keep);
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const auto layer = static_cast<std::int64_t>(i);
    switch (policy.mode) {
      case RecomputeMode::Full: layout[i] = BlockRecompute::Block; break;
      case RecomputeMode::Layers:
        if (layer < policy.layers) layout[i] = BlockRecompute::Block;
        break;
      case RecomputeMode::Selective: layout[i] = BlockRecompute::AttentionCore; break;
      case RecomputeMode::None:
      case RecomputeMode::Auto: break;
    }
  }
  return layout;
}

at::Tensor recomputeInBackward(const Segment& segment, const std::vector<at::Tensor>& inputs) {
  if (!at::GradMode::is_enabled()) return segment(inputs);
  const auto holder = c10::make_intrusive<SegmentHolder>(segment);
  return RecomputedSegment::apply(holder, at::TensorList(inputs));
}

}  // namespace tb::engine
