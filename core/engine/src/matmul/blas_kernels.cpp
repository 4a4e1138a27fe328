#include "tb/engine/blas_kernels.hpp"

#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdlib>

#include "matmul/blas_symbol.hpp"

namespace tb::engine {

VectorFeatures cpuVectorFeatures() {
  VectorFeatures features;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // libgcc's checks include the operating system's side (XGETBV): a CPU with
  // AVX-512 under a kernel that does not save its registers reports none.
  __builtin_cpu_init();
  features.avx2Fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  features.avx512 = features.avx2Fma && __builtin_cpu_supports("avx512f") &&
                    __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512bw") &&
                    __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
  return features;
}

std::optional<std::string> betterBlasCore(std::string_view detected, const VectorFeatures& cpu) {
  // OpenBLAS names its fallback "Prescott"; a real Prescott has neither set
  // below, so it keeps it.
  if (detected != "Prescott") return std::nullopt;
  if (cpu.avx512) return "SkylakeX";
  if (cpu.avx2Fma) return "Haswell";
  return std::nullopt;
}

std::string blasCoreName() {
  using CoreName = char* (*)();
  const auto coreName = blasSymbol<CoreName>("openblas_get_corename");
  const char* name = coreName != nullptr ? coreName() : nullptr;
  return name != nullptr ? std::string(name) : std::string();
}

void restartWithBlasKernelsForThisCpu(char** argv) {
  // A family the user asked for, or the one set before the restart, stands:
  // this also ends the recursion.
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;
  const auto core = betterBlasCore(blasCoreName(), cpuVectorFeatures());
  if (!core) return;
  // The binary /proc/self/exe points at, not argv[0]: the same file even when
  // argv[0] is a bare name found on PATH or a path relative to a directory
  // since left. Its real path, not the link itself, so that ps and top still
  // name the process after it rather than "exe".
  std::array<char, 4096> self{};
  const ssize_t length = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (length <= 0 || static_cast<std::size_t>(length) >= self.size() - 1) return;
  if (setenv("OPENBLAS_CORETYPE", core->c_str(), 0) != 0) return;
  execv(self.data(), argv);
  // Only reached when the exec failed; go on with the library's choice, but
  // leave the variable unset so that child processes decide for themselves.
  unsetenv("OPENBLAS_CORETYPE");
}

}  // namespace tb::engine
