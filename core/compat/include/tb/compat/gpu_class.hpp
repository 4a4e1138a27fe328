// Classing a GPU by the name nvidia-smi prints ("NVIDIA H100 80GB HBM3").
// The class decides whether CUDA forward compatibility can apply: NVIDIA
// supports it only on data-center GPUs (and select NGC-ready RTX SKUs).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tb::compat {

enum class GpuClass { DataCenter, Workstation, Consumer, Unknown };

/// "data-center", "workstation", "consumer", "unknown".
[[nodiscard]] std::string_view toString(GpuClass gpuClass) noexcept;

/// Classes a GPU by its marketing name, case-insensitively, with or without
/// the "NVIDIA " / "Tesla " prefix. A name that matches no rule is Unknown.
[[nodiscard]] GpuClass classifyGpu(std::string_view name);

/// Common GPU names, for pickers and completion.
[[nodiscard]] const std::vector<std::string>& knownGpuNames();

}  // namespace tb::compat
