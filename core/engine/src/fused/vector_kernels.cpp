// Picks the widest build of the vector kernels that both this binary holds
// (the wide ones need SLEEF's headers at build time) and this CPU runs. It
// reads ATen's environment variable too (ATEN_CPU_CAPABILITY=default|avx2),
// so one setting narrows ATen's kernels and ours alike; ATen's own test of
// the CPU is not exported by every LibTorch.
#include "fused/vector_kernels.hpp"

#include <cstdlib>
#include <string_view>

namespace tb::engine::fused::cpu {

namespace generic {
const VectorKernels& kernels();
}
#if TB_HAVE_WIDE_KERNELS
namespace avx2 {
const VectorKernels& kernels();
}
namespace avx512 {
const VectorKernels& kernels();
}
#endif

#if TB_HAVE_WIDE_KERNELS
namespace {

enum class Width { Generic, Avx2, Avx512 };

/// What the CPU runs, capped by ATEN_CPU_CAPABILITY; the feature sets are
/// the ones the builds are compiled for (core/engine/CMakeLists.txt).
Width widest() {
  __builtin_cpu_init();
  Width width = Width::Generic;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) width = Width::Avx2;
  if (width == Width::Avx2 && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq")) {
    width = Width::Avx512;
  }
  const char* cap = std::getenv("ATEN_CPU_CAPABILITY");
  const std::string_view requested = cap == nullptr ? "" : cap;
  if (requested == "default") return Width::Generic;
  if (requested == "avx2" && width == Width::Avx512) return Width::Avx2;
  return width;
}

}  // namespace
#endif

std::vector<const VectorKernels*> supportedVectorKernels() {
  std::vector<const VectorKernels*> tables;
#if TB_HAVE_WIDE_KERNELS
  const Width width = widest();
  if (width == Width::Avx512) tables.push_back(&avx512::kernels());
  if (width != Width::Generic) tables.push_back(&avx2::kernels());
#endif
  tables.push_back(&generic::kernels());
  return tables;
}

const VectorKernels& vectorKernels() {
  static const VectorKernels* const best = supportedVectorKernels().front();
  return *best;
}

}  // namespace tb::engine::fused::cpu
