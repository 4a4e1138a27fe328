// Which kernels OpenBLAS runs its products with. OpenBLAS built with
// DYNAMIC_ARCH (Debian's) picks a kernel family from the CPU's family and
// model numbers when it loads, and falls back to its generic "Prescott"
// kernels (SSE3) for a model newer than its own table. Debian 12's 0.3.21
// does not know Emerald Rapids (family 6, model 207): ATen's products there
// ran 4.6x slower than with the AVX-512 kernels of the same library
// (docs/PERF.md, "Start-up choices: OpenBLAS kernels and the matmul
// probe"). The family is chosen once, while the library loads, and only
// OPENBLAS_CORETYPE in the environment changes it, so `trainbench run`
// starts itself again with that variable set.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tb::engine {

/// The vector instruction sets OpenBLAS's kernel families need, as the CPU
/// and the operating system offer them.
struct VectorFeatures {
  bool avx2Fma = false;  ///< AVX2 and FMA: the Haswell kernels
  bool avx512 = false;   ///< AVX-512 F, CD, BW, DQ and VL: the SkylakeX kernels
};

/// What this CPU offers (both false off x86-64).
[[nodiscard]] VectorFeatures cpuVectorFeatures();

/// The kernel family, spelled as OPENBLAS_CORETYPE takes it, to ask for when
/// the library chose `detected`; nothing when its choice stands. Only the
/// generic fallback is replaced: a family the library picked on purpose is
/// its own call.
[[nodiscard]] std::optional<std::string> betterBlasCore(std::string_view detected,
                                                        const VectorFeatures& cpu);

/// The kernel family the loaded OpenBLAS uses (openblas_get_corename), or ""
/// when LibTorch's BLAS is not OpenBLAS.
[[nodiscard]] std::string blasCoreName();

/// When OPENBLAS_CORETYPE is unset and betterBlasCore names a family, sets the
/// variable and replaces this process with a fresh start of the same
/// executable and `argv` (main()'s own). Returns when nothing needs doing, or
/// when the restart failed (the process then goes on with the library's
/// choice). Only for a process that may start over, before it has written
/// anything: `trainbench run` (tb::cli::allowRestart) and the benchmark
/// programs' main(). Never from a library or a test.
void restartWithBlasKernelsForThisCpu(char** argv);

}  // namespace tb::engine
