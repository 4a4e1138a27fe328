// `trainbench` starts itself again with OpenBLAS's vector kernels where the
// library fell back to its generic ones (tb/engine/blas_kernels.hpp), through
// the real binary: config.json records the kernels the run used, a family the
// user set stands, and on a CPU with AVX2 a run never multiplies with the
// SSE3 fallback. On a CPU that OpenBLAS knows, the last test holds without
// any restart; on one it does not know (Emerald Rapids under Debian 12's
// 0.3.21) it fails unless the restart happened.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"

namespace {

using tb::cli::test::runCli;

// Where the runs leave their files; the variable is removed from the child's
// environment unless the test sets it, whatever ctest's own environment holds.
std::string runDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("tb_cli_blas_kernels_" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

nlohmann::json configOf(const std::string& dir) {
  std::ifstream in(std::filesystem::path(dir) / "config.json");
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

std::string blasCoreOfRun(const std::string& name, const std::map<std::string, std::string>& env,
                          const std::vector<std::string>& unset) {
  const std::string dir = runDir(name);
  const auto run = runCli(
      {"run", "--model", "tiny", "--steps", "1", "--threads", "1", "--run-dir", dir, "--json"}, env,
      unset);
  EXPECT_EQ(run.exitCode, 0) << run.err;
  const nlohmann::json config = configOf(dir);
  EXPECT_TRUE(config.contains("blas_core")) << config.dump();
  return config.value("blas_core", std::string("(missing)"));
}

bool cpuRunsAvx2() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

TEST(CliRunBlasKernels, AFamilyTheUserSetStands) {
  // Prescott runs on every x86-64 CPU, so it is the one family this test can
  // ask for anywhere.
  const std::string core = blasCoreOfRun("user", {{"OPENBLAS_CORETYPE", "Prescott"}}, {});
  if (core.empty()) GTEST_SKIP() << "LibTorch's BLAS here is not OpenBLAS";
  EXPECT_EQ(core, "Prescott");
}

TEST(CliRunBlasKernels, ACpuWithAvx2NeverRunsTheGenericKernels) {
  const std::string core = blasCoreOfRun("unset", {}, {"OPENBLAS_CORETYPE"});
  if (core.empty()) GTEST_SKIP() << "LibTorch's BLAS here is not OpenBLAS";
  if (!cpuRunsAvx2()) GTEST_SKIP() << "this CPU has no AVX2; the generic kernels are right";
  EXPECT_NE(core, "Prescott");
}

TEST(CliRunBlasKernels, TheRestartKeepsTheArgumentsAndTheExitCode) {
  // The engine checks --steps after the restart, so the restarted process
  // must still see the value, name it and exit 2.
  const auto run = runCli({"run", "--model", "tiny", "--steps", "0"}, {}, {"OPENBLAS_CORETYPE"});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_NE(run.err.find("--steps 0"), std::string::npos) << run.err;
}

}  // namespace
