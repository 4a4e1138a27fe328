// Fused RoPE on x [B, T, H, hd]: each (2i, 2i+1) pair is rotated in registers
// (deinterleave the pairs into even and odd lanes, rotate, interleave back)
// instead of building the swapped copy and two broadcast products of
// ops::rope. The rotation is orthogonal, so backward is the same kernel with
// the angle negated: nothing is saved but the tables, which the model holds
// anyway. The per-element arithmetic is the reference's: e·c − o·s and
// o·c + e·s.
#include <torch/csrc/autograd/custom_function.h>

#include <stdexcept>
#include <string>

#include "fused/cpu_kernels.hpp"
#include "fused/fused_ops.hpp"
#include "model/op_scope.hpp"

namespace tb::engine::fused {
namespace {

using cpu::kLanes;
using cpu::Vec;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// Rotates every head of every (batch, position) row by its position's angle;
/// `sinSign` = −1 rotates back (the backward pass).
void rotate(const float* x, float* y, const float* cosTable, const float* sinTable,
            std::int64_t rows, std::int64_t seq, std::int64_t heads, std::int64_t headDim,
            float sinSign) {
  const std::int64_t half = headDim / 2;
  at::parallel_for(0, rows, 4, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t row = begin; row < end; ++row) {
      const float* c = cosTable + (row % seq) * half;
      const float* s = sinTable + (row % seq) * half;
      for (std::int64_t h = 0; h < heads; ++h) {
        const float* in = x + (row * heads + h) * headDim;
        float* out = y + (row * heads + h) * headDim;
        std::int64_t i = 0;  // pair index
        for (; i + kLanes <= half; i += kLanes) {
          const auto [even, odd] =
              at::vec::deinterleave2(Vec::loadu(in + 2 * i), Vec::loadu(in + 2 * i + kLanes));
          const Vec cv = Vec::loadu(c + i);
          const Vec sv = Vec::loadu(s + i) * Vec(sinSign);
          const auto [first, second] =
              at::vec::interleave2(even * cv - odd * sv, odd * cv + even * sv);
          first.store(out + 2 * i);
          second.store(out + 2 * i + kLanes);
        }
        for (; i < half; ++i) {
          const float e = in[2 * i];
          const float o = in[2 * i + 1];
          const float sn = s[i] * sinSign;
          out[2 * i] = e * c[i] - o * sn;
          out[2 * i + 1] = o * c[i] + e * sn;
        }
      }
    }
  });
}

at::Tensor rotated(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin,
                   float sinSign) {
  const at::Tensor input = x.contiguous();
  at::Tensor y = at::empty_like(input);
  rotate(input.data_ptr<float>(), y.data_ptr<float>(), cos.data_ptr<float>(), sin.data_ptr<float>(),
         input.size(0) * input.size(1), input.size(1), input.size(2), input.size(3), sinSign);
  return y;
}

class FusedRope final : public torch::autograd::Function<FusedRope> {
 public:
  static at::Tensor forward(AutogradContext* context, const at::Tensor& x, const at::Tensor& cos,
                            const at::Tensor& sin) {
    context->saved_data["cos"] = cos;
    context->saved_data["sin"] = sin;
    return rotated(x, cos, sin, 1.0F);
  }

  static variable_list backward(AutogradContext* context, variable_list outputGrads) {
    const at::Tensor cos = context->saved_data["cos"].toTensor();
    const at::Tensor sin = context->saved_data["sin"].toTensor();
    return {rotated(outputGrads[0], cos, sin, -1.0F), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor rope(const at::Tensor& x, const ops::RopeTables& tables) {
  cpu::requireFloatCpu(x, "rope input");
  cpu::requireFloatCpu(tables.cos, "rope cos table");
  cpu::requireFloatCpu(tables.sin, "rope sin table");
  if (x.dim() != 4 || x.size(3) % 2 != 0) {
    throw std::invalid_argument(
        "fused rope: input must be [batch, seq, heads, head_dim] with "
        "an even head_dim, got " +
        std::to_string(x.dim()) + " dimensions, last " + std::to_string(x.size(-1)));
  }
  const std::int64_t seq = x.size(1);
  const std::int64_t half = x.size(3) / 2;
  if (tables.cos.size(0) < seq || tables.cos.size(1) != half) {
    throw std::invalid_argument("fused rope: tables of " + std::to_string(tables.cos.size(0)) +
                                " positions do not cover sequence length " + std::to_string(seq));
  }
  // Tables are constants: detached, so autograd never tracks them.
  const at::Tensor cos = tables.cos.narrow(0, 0, seq).detach().contiguous();
  const at::Tensor sin = tables.sin.narrow(0, 0, seq).detach().contiguous();
  const OpScope scope("tb::fused::rope");
  return FusedRope::apply(x, cos, sin);
}

}  // namespace tb::engine::fused
