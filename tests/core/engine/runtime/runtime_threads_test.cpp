// The tuned runtime's thread arrangement: one pool, owned by the library that
// runs the products. Two pools of spinning threads on the same cores made a
// `small` step 2.6x slower on the CI machine (docs/PERF.md), so a run's
// config.json must show that the other library was left one thread, and a
// stock run after a tuned one in the same process must get the BLAS
// library's default back. Where the BLAS has no pool of its own (MKL, an
// OpenMP OpenBLAS) there is nothing to arrange and the checks say so.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string_view>
#include <nlohmann/json.hpp>

#include "runtime/host_runtime.hpp"
#include "tb/engine/trainer.hpp"

namespace {

nlohmann::json configOf(const std::filesystem::path& dir) {
  std::ifstream in(dir / "config.json");
  return nlohmann::json::parse(in);
}

nlohmann::json startEventOf(const std::filesystem::path& dir) {
  std::ifstream in(dir / "events.jsonl");
  std::string line;
  std::getline(in, line);
  return nlohmann::json::parse(line);
}

tb::engine::RunConfig tinyRun(const std::string& name, const std::string& runtime, int threads) {
  tb::engine::RunConfig config;
  config.model = *tb::model::findPreset("tiny");
  config.steps = 2;
  config.threads = threads;
  config.runtime = *tb::engine::parseRuntime(runtime);
  config.runDir = std::filesystem::temp_directory_path() / ("tb_threads_" + name);
  std::filesystem::remove_all(config.runDir);
  return config;
}

TEST(HostRuntime, TheBlasPoolSizeRoundTripsWhereTheLibraryHasOne) {
  const int before = tb::engine::blasLibraryThreads();
  if (before == 0) {
    EXPECT_FALSE(tb::engine::setBlasLibraryThreads(2));
    GTEST_SKIP() << "this BLAS has no thread pool of its own";
  }
  ASSERT_TRUE(tb::engine::setBlasLibraryThreads(3));
  EXPECT_EQ(tb::engine::blasLibraryThreads(), 3);
  EXPECT_FALSE(tb::engine::setBlasLibraryThreads(0));  // refused, unchanged
  EXPECT_EQ(tb::engine::blasLibraryThreads(), 3);
  ASSERT_TRUE(tb::engine::setBlasLibraryThreads(before));
}

TEST(HostRuntime, TunedRunsGiveThePoolToOneLibraryAndStockRunsGetTheDefaultsBack) {
  const int blasDefault = tb::engine::blasLibraryThreads();
  for (const char* runtime : {"tuned", "tuned,-matmul"}) {
    const auto config =
        tinyRun(std::string_view(runtime) == "tuned" ? "tuned" : "aten", runtime, 2);
    const auto summary = tb::engine::runTraining(config);
    ASSERT_TRUE(summary.ok()) << summary.error().message;
    const nlohmann::json written = configOf(config.runDir);
    const int intraOp = written.at("threads").get<int>();
    const int blas = written.at("blas_threads").get<int>();
    EXPECT_EQ(intraOp, summary->threads);
    if (blasDefault == 0) {
      EXPECT_EQ(blas, 0);
      EXPECT_EQ(intraOp, 2);
    } else if (summary->matmulPath == "aten") {
      EXPECT_EQ(intraOp, 1) << runtime << ": BLAS owns the pool";
      EXPECT_EQ(blas, 2) << runtime;
    } else {
      EXPECT_EQ(intraOp, 2) << runtime << ": oneDNN runs on the intra-op pool";
      EXPECT_EQ(blas, 1) << runtime;
    }
  }
  const auto stock = tinyRun("stock", "stock", 0);
  ASSERT_TRUE(tb::engine::runTraining(stock).ok());
  EXPECT_EQ(configOf(stock.runDir).at("blas_threads").get<int>(), blasDefault);
  EXPECT_EQ(tb::engine::blasLibraryThreads(), blasDefault);
}

// With the pool given to one library or the other, ATen's path leaves the
// step's other operators one thread: the path is chosen on a block of the
// step, timed in the threads each path trains with, not on the products alone.
TEST(HostRuntime, TunedRunsWhosePathsTrainInOtherThreadsChooseByABlockToo) {
  if (tb::engine::blasLibraryThreads() == 0)
    GTEST_SKIP() << "this BLAS has no thread pool of its own";
  const auto raced = tinyRun("raced", "tuned", 2);
  const auto summary = tb::engine::runTraining(raced);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  const nlohmann::json probe = startEventOf(raced.runDir).at("matmul_probe");
  ASSERT_TRUE(probe.contains("block_ms")) << probe.dump();
  const double aten = probe.at("block_ms").at("aten").get<double>();
  const double onednn = probe.at("block_ms").at("onednn").get<double>();
  EXPECT_GT(aten, 0.0);
  EXPECT_GT(onednn, 0.0);
  // ATen only where its block and its products both win (fastestPath).
  const bool atenProducts =
      probe.at("gflops").at("aten").get<double>() > probe.at("gflops").at("onednn").get<double>();
  EXPECT_EQ(summary->matmulPath, aten < onednn && atenProducts ? "aten" : "onednn") << probe.dump();

  // One thread: both paths train in the same threads, the products decide.
  const auto single = tinyRun("single", "tuned", 1);
  ASSERT_TRUE(tb::engine::runTraining(single).ok());
  EXPECT_FALSE(startEventOf(single.runDir).at("matmul_probe").contains("block_ms"));
}

}  // namespace
