// The direct oneDNN matrix-product path. LibTorch's own oneDNN route
// (mkldnn_linear) converts to and from its blocked layout on every call, which
// costs more than the product saves on our shapes; oneDNN's matmul primitive
// reads plain strided float32 memory, so this path hands it the tensors'
// storage as is and expresses every transpose as strides.
#pragma once

#include "matmul/matmul_path.hpp"

namespace tb::engine {

/// x · Wᵀ (+ b) and its three gradients on oneDNN's matmul and reduction
/// primitives, zero copy. Inputs that are not float32, CPU and dense (row-major
/// x, row-major or transposed W) take at::linear instead, so it is always correct.
[[nodiscard]] const MatmulPath& oneDnnMatmulPath();

/// True when `oneDnnMatmulPath().linear(x, w, b)` would run on oneDNN rather
/// than fall back (tests use it to be sure they exercise the primitive).
[[nodiscard]] bool oneDnnAccepts(const at::Tensor& x, const at::Tensor& weight,
                                 const at::Tensor& bias);

}  // namespace tb::engine
