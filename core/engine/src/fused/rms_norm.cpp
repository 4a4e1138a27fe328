// Fused RMSNorm: forward reads each row once for its sum of squares and once
// to write y = (x · r) · w, with r = rsqrt(mean(x²) + eps) in the order
// ops::rmsNorm rounds it. Backward keeps only x and r (one float per row),
// not the normalised activations autograd would save, and computes
//   dx = r·w·g − x · r³ · Σ(g·w·x) / D,   dw = Σ_rows g · x · r
// in one pass over fixed blocks of rows; each block writes its own dw partial
// and the partials are added in block order, so dw does not depend on how
// many threads ran.
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cmath>
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

void forwardRows(const float* x, const float* w, float* y, float* inverseRms, std::int64_t rows,
                 std::int64_t dim, float eps) {
  at::parallel_for(0, rows, 16, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t row = begin; row < end; ++row) {
      const float* in = x + row * dim;
      float* out = y + row * dim;
      const float meanSquare = cpu::sumOfSquares(in, dim) / static_cast<float>(dim);
      const float r = 1.0F / std::sqrt(meanSquare + eps);
      inverseRms[row] = r;
      const Vec rv(r);
      std::int64_t i = 0;
      for (; i + kLanes <= dim; i += kLanes) {
        (Vec::loadu(in + i) * rv * Vec::loadu(w + i)).store(out + i);
      }
      for (; i < dim; ++i) out[i] = in[i] * r * w[i];
    }
  });
}

/// dx for the rows of one block, and that block's Σ g·x·r into `dwPartial`.
void backwardBlock(const float* g, const float* x, const float* w, const float* inverseRms,
                   float* dx, float* dwPartial, std::int64_t firstRow, std::int64_t endRow,
                   std::int64_t dim) {
  for (std::int64_t row = firstRow; row < endRow; ++row) {
    const float* gr = g + row * dim;
    const float* xr = x + row * dim;
    float* dxr = dx + row * dim;
    const float r = inverseRms[row];
    Vec dotAcc(0.0F);
    std::int64_t i = 0;
    for (; i + kLanes <= dim; i += kLanes) {
      dotAcc = dotAcc + Vec::loadu(gr + i) * Vec::loadu(w + i) * Vec::loadu(xr + i);
    }
    float dot = at::vec::vec_reduce_all<float>([](Vec a, Vec b) { return a + b; }, dotAcc);
    for (; i < dim; ++i) dot += gr[i] * w[i] * xr[i];
    const float coefficient = r * r * r * dot / static_cast<float>(dim);
    const Vec rv(r);
    const Vec cv(coefficient);
    i = 0;
    for (; i + kLanes <= dim; i += kLanes) {
      const Vec gv = Vec::loadu(gr + i);
      const Vec xv = Vec::loadu(xr + i);
      (rv * Vec::loadu(w + i) * gv - xv * cv).store(dxr + i);
      (Vec::loadu(dwPartial + i) + gv * xv * rv).store(dwPartial + i);
    }
    for (; i < dim; ++i) {
      dxr[i] = r * w[i] * gr[i] - xr[i] * coefficient;
      dwPartial[i] += gr[i] * xr[i] * r;
    }
  }
}

class FusedRmsNorm final : public torch::autograd::Function<FusedRmsNorm> {
 public:
  static at::Tensor forward(AutogradContext* context, const at::Tensor& x, const at::Tensor& weight,
                            double eps) {
    const at::Tensor input = x.contiguous();
    const at::Tensor w = weight.contiguous();
    const std::int64_t dim = input.size(-1);
    const std::int64_t rows = dim == 0 ? 0 : input.numel() / dim;
    at::Tensor y = at::empty_like(input);
    at::Tensor inverseRms = at::empty({rows}, input.options());
    forwardRows(input.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(),
                inverseRms.data_ptr<float>(), rows, dim, static_cast<float>(eps));
    context->save_for_backward({input, w, inverseRms});
    return y;
  }

  static variable_list backward(AutogradContext* context, variable_list outputGrads) {
    const variable_list saved = context->get_saved_variables();
    const at::Tensor& x = saved[0];
    const at::Tensor& w = saved[1];
    const at::Tensor& inverseRms = saved[2];
    const at::Tensor g = outputGrads[0].contiguous();
    const std::int64_t dim = x.size(-1);
    const std::int64_t rows = inverseRms.numel();
    at::Tensor dx = at::empty_like(x);
    const std::int64_t blocks = cpu::blockCount(rows);
    at::Tensor partials = at::zeros({std::max<std::int64_t>(blocks, 1), dim}, x.options());
    const float* gp = g.data_ptr<float>();
    const float* xp = x.data_ptr<float>();
    const float* wp = w.data_ptr<float>();
    const float* rp = inverseRms.data_ptr<float>();
    float* dxp = dx.data_ptr<float>();
    float* pp = partials.data_ptr<float>();
    at::parallel_for(0, blocks, 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t block = begin; block < end; ++block) {
        const std::int64_t first = block * cpu::kRowsPerBlock;
        backwardBlock(gp, xp, wp, rp, dxp, pp + block * dim, first,
                      std::min(rows, first + cpu::kRowsPerBlock), dim);
      }
    });
    // Block order, not thread order: the same dw on any thread count.
    at::Tensor dw = at::zeros({dim}, x.options());
    float* dwp = dw.data_ptr<float>();
    for (std::int64_t block = 0; block < blocks; ++block) {
      const float* part = pp + block * dim;
      for (std::int64_t i = 0; i < dim; ++i) dwp[i] += part[i];
    }
    return {dx, dw, at::Tensor()};
  }
};

}  // namespace

at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  cpu::requireFloatCpu(x, "rmsNorm input");
  cpu::requireFloatCpu(weight, "rmsNorm weight");
  if (weight.dim() != 1 || weight.size(0) != x.size(-1)) {
    throw std::invalid_argument("fused rmsNorm: weight of " + std::to_string(weight.numel()) +
                                " elements does not match the last dimension " +
                                std::to_string(x.size(-1)));
  }
  const OpScope scope("tb::fused::rmsNorm");
  return FusedRmsNorm::apply(x, weight, eps);
}

}  // namespace tb::engine::fused
