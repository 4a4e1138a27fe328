// The choice of OpenBLAS kernel family (tb/engine/blas_kernels.hpp): only the
// library's generic fallback is replaced, by the widest family the CPU runs,
// and what the loaded library reports is what config.json records. The
// restart itself is exercised through the real binary
// (tests/integration/cli_run_blas_kernels_test.cpp).
#include <gtest/gtest.h>

#include <dlfcn.h>

#include "tb/engine/blas_kernels.hpp"

namespace {

using tb::engine::betterBlasCore;
using tb::engine::VectorFeatures;

constexpr VectorFeatures kNoVectors{};
constexpr VectorFeatures kAvx2{.avx2Fma = true, .avx512 = false};
constexpr VectorFeatures kAvx512{.avx2Fma = true, .avx512 = true};

TEST(BlasKernels, TheGenericFallbackGivesWayToTheWidestFamilyTheCpuRuns) {
  EXPECT_EQ(betterBlasCore("Prescott", kAvx512), "SkylakeX");
  EXPECT_EQ(betterBlasCore("Prescott", kAvx2), "Haswell");
}

TEST(BlasKernels, ACpuWithoutAvx2KeepsTheFallback) {
  EXPECT_EQ(betterBlasCore("Prescott", kNoVectors), std::nullopt);
}

TEST(BlasKernels, AFamilyTheLibraryChoseOnPurposeStands) {
  // Haswell on an AVX-512 CPU is what OpenBLAS picks where the OS does not
  // save AVX-512 state, or for a part it knows to run AVX2 kernels faster.
  EXPECT_EQ(betterBlasCore("Haswell", kAvx512), std::nullopt);
  EXPECT_EQ(betterBlasCore("SkylakeX", kAvx512), std::nullopt);
  EXPECT_EQ(betterBlasCore("Zen", kAvx2), std::nullopt);
  EXPECT_EQ(betterBlasCore("", kAvx512), std::nullopt);  // not OpenBLAS
}

TEST(BlasKernels, TheCoreNameIsTheLoadedLibrarysOwn) {
  using CoreName = char* (*)();
  const auto coreName = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (coreName == nullptr) {
    EXPECT_EQ(tb::engine::blasCoreName(), "");
    GTEST_SKIP() << "LibTorch's BLAS here is not OpenBLAS";
  }
  EXPECT_EQ(tb::engine::blasCoreName(), std::string(coreName()));
  EXPECT_FALSE(tb::engine::blasCoreName().empty());
}

}  // namespace
