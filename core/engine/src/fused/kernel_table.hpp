// The fused kernels of one device backend as a table of function pointers,
// so the step compiler asks "does this backend have a kernel for this
// pattern?" in one place and the compiled ops call through the table without
// `if (cuda)` branches. A CUDA backend (the GPU issue) fills its own table;
// until then its entries are empty and every pattern falls back with the
// table's reason.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string_view>

#include "fused/fused_ops.hpp"
#include "tb/engine/run_config.hpp"

namespace tb::engine::fused {

/// The fused kernels of one device; a null entry has no kernel yet.
struct KernelTable {
  std::string_view backend;        ///< "cpu", "cuda"
  std::string_view missingReason;  ///< why a null entry falls back
  at::Tensor (*rmsNorm)(const at::Tensor&, const at::Tensor&, double) = nullptr;
  at::Tensor (*rope)(const at::Tensor&, const ops::RopeTables&) = nullptr;
  at::Tensor (*swiGluGate)(const at::Tensor&, const at::Tensor&) = nullptr;
  at::Tensor (*causalAttention)(const at::Tensor&, const at::Tensor&, const at::Tensor&) = nullptr;
  at::Tensor (*headLoss)(const at::Tensor&, const at::Tensor&, const at::Tensor&, const MatmulPath&,
                         std::int64_t) = nullptr;
  double (*clippedAdamW)(at::Tensor&, const at::Tensor&, at::Tensor&, at::Tensor&, std::int64_t,
                         const AdamWStep&, double) = nullptr;
};

/// The table of `device`'s backend.
[[nodiscard]] const KernelTable& kernelTable(Device device);

}  // namespace tb::engine::fused
