// Fixture run directories are written by the test in the shapes the engine
// leaves behind: finished, killed without a summary, still running, corrupt.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tb/runs/run_store.hpp"

namespace tb::runs {
namespace {

namespace fs = std::filesystem;

constexpr const char* kConfig =
    R"({"model":{"name":"tiny","vocab":512,"dim":64,"layers":2,"heads":4,"kv_heads":2,)"
    R"("ffn":128,"seq":32,"batch":2,"rope_theta":10000.0,"qkv_bias":false},)"
    R"("steps":40,"recompute":"full","threads":2})";

class RunStore : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = fs::temp_directory_path() /
             (std::string("tb-runs-store-") +
              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(store_);
    fs::create_directories(store_);
  }
  void TearDown() override { fs::remove_all(store_); }

  fs::path makeRun(const std::string& id, const char* config, const char* summary) {
    const fs::path dir = store_ / id;
    fs::create_directories(dir);
    if (config != nullptr) std::ofstream(dir / "config.json") << config;
    if (summary != nullptr) std::ofstream(dir / "summary.json") << summary;
    std::ofstream(dir / "events.jsonl") << R"({"event":"start"})" << '\n';
    return dir;
  }

  static void age(const fs::path& dir) {
    const auto old = fs::file_time_type::clock::now() - std::chrono::hours(1);
    for (const auto& entry : fs::directory_iterator(dir)) fs::last_write_time(entry.path(), old);
  }

  fs::path store_;
};

TEST_F(RunStore, CompletedRunHasSummaryNumbers) {
  makeRun("20261129T100000Z-tiny-0001", kConfig,
          R"({"status":"completed","model":"tiny","steps":40,"tokens_per_s":5000.5,)"
          R"("peak_bytes":123456,"loss_first":6.2,"loss_last":3.1,"recompute":"full"})");
  auto runs = listRuns(store_);
  ASSERT_TRUE(runs) << runs.error().message;
  ASSERT_EQ(runs->size(), 1U);
  const RunRecord& run = runs->front();
  EXPECT_EQ(run.id, "20261129T100000Z-tiny-0001");
  EXPECT_EQ(run.state, RunState::Completed);
  EXPECT_EQ(run.model, "tiny");
  EXPECT_EQ(run.steps, 40);
  EXPECT_EQ(run.totalSteps, 40);
  EXPECT_DOUBLE_EQ(run.tokensPerSecond, 5000.5);
  EXPECT_EQ(run.peakBytes, 123456U);
  ASSERT_TRUE(run.lossLast.has_value());
  EXPECT_DOUBLE_EQ(*run.lossLast, 3.1);
  EXPECT_EQ(run.recompute, "full");
  EXPECT_LT(std::chrono::system_clock::now() - run.startedAt, std::chrono::minutes(5));
}

TEST_F(RunStore, NoSummaryIsRunningWhileFreshAndInterruptedWhenStale) {
  const fs::path fresh = makeRun("b-fresh", kConfig, nullptr);
  const fs::path stale = makeRun("a-stale", kConfig, nullptr);
  age(stale);
  EXPECT_EQ(readRun(fresh).state, RunState::Running);
  const RunRecord killed = readRun(stale);
  EXPECT_EQ(killed.state, RunState::Interrupted);
  EXPECT_NE(killed.message.find("without a summary"), std::string::npos);
}

TEST_F(RunStore, KilledBeforeItWroteItsConfigIsInterruptedNotCorrupt) {
  // RunDirectory::create opens events.jsonl first; config.json follows.
  const fs::path fresh = makeRun("b-fresh", nullptr, nullptr);
  const fs::path stale = makeRun("a-stale", nullptr, nullptr);
  std::ofstream(stale / "config.json.tmp") << R"({"model":)";  // an unfinished atomic write
  age(stale);
  EXPECT_EQ(readRun(fresh).state, RunState::Running);
  const RunRecord killed = readRun(stale);
  EXPECT_EQ(killed.state, RunState::Interrupted);
  EXPECT_EQ(killed.message, "killed before it wrote config.json");
}

TEST_F(RunStore, CorruptFilesAreUnreadableWithTheReason) {
  makeRun("c-bad-summary", kConfig, R"({"status":"completed","steps":)");
  // A folder with neither config.json nor events.jsonl is no run at all.
  fs::remove(makeRun("d-no-config", nullptr, nullptr) / "events.jsonl");
  makeRun("e-bad-status", kConfig, R"({"status":"great"})");
  makeRun("f-config-array", "[1]", nullptr);
  auto runs = listRuns(store_);
  ASSERT_TRUE(runs);
  ASSERT_EQ(runs->size(), 4U);
  for (const RunRecord& run : *runs) EXPECT_EQ(run.state, RunState::Unreadable) << run.id;
  // Newest id first.
  EXPECT_EQ((*runs)[0].id, "f-config-array");
  EXPECT_EQ((*runs)[0].message, "config.json is not a JSON object");
  EXPECT_NE((*runs)[1].message.find("great"), std::string::npos);
  EXPECT_EQ((*runs)[2].message, "config.json is missing");
  EXPECT_EQ((*runs)[3].message, "summary.json is not a JSON object");
}

TEST_F(RunStore, OomRunKeepsItsMessage) {
  makeRun("g-oom", kConfig,
          R"({"status":"oom","steps":0,"loss_first":null,"loss_last":null,)"
          R"("message":"out of memory: needed 4096 bytes, budget 1000"})");
  const RunRecord run = readRun(store_ / "g-oom");
  EXPECT_EQ(run.state, RunState::Oom);
  EXPECT_FALSE(run.lossFirst.has_value());
  EXPECT_NE(run.message.find("budget 1000"), std::string::npos);
}

TEST_F(RunStore, MissingStoreIsAnEmptyList) {
  auto runs = listRuns(store_ / "nothing-here");
  ASSERT_TRUE(runs);
  EXPECT_TRUE(runs->empty());
}

TEST_F(RunStore, FilesNextToRunsAreIgnored) {
  std::ofstream(store_ / "notes.txt") << "x";
  auto runs = listRuns(store_);
  ASSERT_TRUE(runs);
  EXPECT_TRUE(runs->empty());
}

TEST(RunStoreDirectory, FollowsXdgDataHomeLikeTheCli) {
  const char* previous = std::getenv("XDG_DATA_HOME");
  const std::string saved = previous != nullptr ? previous : "";
  ::setenv("XDG_DATA_HOME", "/tmp/tb-xdg-probe", 1);
  EXPECT_EQ(runStoreDirectory(), fs::path("/tmp/tb-xdg-probe/trainbench/runs"));
  if (previous != nullptr) {
    ::setenv("XDG_DATA_HOME", saved.c_str(), 1);
  } else {
    ::unsetenv("XDG_DATA_HOME");
  }
}

}  // namespace
}  // namespace tb::runs
