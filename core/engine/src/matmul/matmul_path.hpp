// Where the decoder's matrix products run. Every linear layer (projections,
// the SwiGLU matrices, the output head) goes through one MatmulPath, so the
// tuned runtime can swap ATen's default path for the one its start-up probe
// measured fastest without touching the model or the fused operators.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <string_view>
#include <vector>

namespace tb::engine {

/// What linear(x, weight, bias)'s backward gives for one output gradient.
struct LinearGradients {
  at::Tensor input;   ///< like x
  at::Tensor weight;  ///< like weight
  at::Tensor bias;    ///< [out], defined only when asked for
};

class MatmulPath {
 public:
  virtual ~MatmulPath() = default;
  /// Short name for events and reports: "aten", "onednn".
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// x [..., in] · weight[out, in]ᵀ (+ bias [out] when defined), differentiable
  /// in all three like at::linear.
  [[nodiscard]] virtual at::Tensor linear(const at::Tensor& x, const at::Tensor& weight,
                                          const at::Tensor& bias) const = 0;
  /// The gradients of linear(x, weight, bias) for `gradient` [..., out],
  /// formed directly without a graph, for a caller that keeps x out of
  /// autograd (linearsOfRecomputedInput): dx = g·W, dW = gᵀ·x, db = Σ g.
  [[nodiscard]] virtual LinearGradients linearGradients(const at::Tensor& gradient,
                                                        const at::Tensor& x,
                                                        const at::Tensor& weight,
                                                        bool withBias) const = 0;
};

/// linearGradients on ATen's mm, for any device and dtype.
[[nodiscard]] LinearGradients atenLinearGradients(const at::Tensor& gradient, const at::Tensor& x,
                                                  const at::Tensor& weight, bool withBias);

/// at::linear: LibTorch's default path (its BLAS), what the stock runtime uses.
[[nodiscard]] const MatmulPath& atenMatmulPath();

/// The CPU paths the start-up probe races: ATen's first, then the build's
/// specialised one where it has it (oneDNN's, onednn_matmul.cpp; a build
/// without oneDNN, matmul_paths_aten.cpp, races ATen's alone).
[[nodiscard]] const std::vector<const MatmulPath*>& cpuMatmulPaths();

/// The oneDNN the engine calls ("3.0.0"), as the library reports it; empty
/// in a build without oneDNN.
[[nodiscard]] std::string oneDnnVersion();

}  // namespace tb::engine
