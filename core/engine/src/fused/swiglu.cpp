// Fused SwiGLU gate silu(a) · b: one pass forward, one pass backward writing
// both gradients, with the sigmoid recomputed in backward from a (one exp per
// element is cheaper than storing and re-reading a third tensor). silu is
// a / (1 + exp(−a)) as ATen computes it, so forward matches the reference.
//   da = g · b · s · (1 + a · (1 − s)),   db = g · a · s,   s = sigmoid(a)
#include <torch/csrc/autograd/custom_function.h>

#include <sstream>
#include <stdexcept>

#include "fused/cpu_kernels.hpp"
#include "fused/fused_ops.hpp"
#include "fused/vector_kernels.hpp"
#include "model/op_scope.hpp"

namespace tb::engine::fused {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr std::int64_t kGrain = 8192;

void gateForward(const float* a, const float* b, float* y, std::int64_t n) {
  const auto kernel = cpu::vectorKernels().swiGluForward;
  at::parallel_for(0, n, kGrain, [&](std::int64_t begin, std::int64_t end) {
    kernel(a + begin, b + begin, y + begin, end - begin);
  });
}

void gateBackward(const float* g, const float* a, const float* b, float* da, float* db,
                  std::int64_t n) {
  const auto kernel = cpu::vectorKernels().swiGluBackward;
  at::parallel_for(0, n, kGrain, [&](std::int64_t begin, std::int64_t end) {
    kernel(g + begin, a + begin, b + begin, da + begin, db + begin, end - begin);
  });
}

class FusedSwiGluGate final : public torch::autograd::Function<FusedSwiGluGate> {
 public:
  static at::Tensor forward(AutogradContext* context, const at::Tensor& a, const at::Tensor& b) {
    const at::Tensor ac = a.contiguous();
    const at::Tensor bc = b.contiguous();
    at::Tensor y = at::empty_like(ac);
    gateForward(ac.data_ptr<float>(), bc.data_ptr<float>(), y.data_ptr<float>(), ac.numel());
    context->save_for_backward({ac, bc});
    return y;
  }

  static variable_list backward(AutogradContext* context, variable_list outputGrads) {
    const variable_list saved = context->get_saved_variables();
    const at::Tensor g = outputGrads[0].contiguous();
    at::Tensor da = at::empty_like(saved[0]);
    at::Tensor db = at::empty_like(saved[1]);
    gateBackward(g.data_ptr<float>(), saved[0].data_ptr<float>(), saved[1].data_ptr<float>(),
                 da.data_ptr<float>(), db.data_ptr<float>(), g.numel());
    return {da, db};
  }
};

}  // namespace

at::Tensor swiGluGate(const at::Tensor& a, const at::Tensor& b) {
  cpu::requireFloatCpu(a, "swiGluGate a");
  cpu::requireFloatCpu(b, "swiGluGate b");
  if (!a.sizes().equals(b.sizes())) {
    std::ostringstream message;
    message << "fused swiGluGate: a " << a.sizes() << " and b " << b.sizes() << " differ in shape";
    throw std::invalid_argument(message.str());
  }
  const OpScope scope("tb::fused::swiGluGate");
  return FusedSwiGluGate::apply(a, b);
}

}  // namespace tb::engine::fused
