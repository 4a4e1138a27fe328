// A plan folder read back: each job's state from its own files (run
// directory or framework log) and what submit.sh recorded, and the
// configurations from the completed jobs only.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tb/bench/cluster_collect.hpp"
#include "tb/common/atomic_file.hpp"

namespace tb::bench {
namespace {

namespace fs = std::filesystem;

ClusterPlan planOf(bool engine, int repeats) {
  ClusterPlan plan;
  plan.appVersion = "0.1.0";
  plan.createdAt = "2026-12-06T03:00:00Z";
  plan.release = "25.09";
  plan.scheduler = Scheduler::Torchrun;
  plan.container = "none";
  plan.nodes = 1;
  plan.gpusPerNode = 2;
  plan.repeats = repeats;
  plan.workload = {.engine = engine,
                   .model = engine ? "tiny" : "",
                   .device = "cpu",
                   .command = engine ? std::vector<std::string>{}
                                     : std::vector<std::string>{"python", "train.py"}};
  for (const AblationStep step : kAblationSteps) {
    plan.configurations.push_back(
        {.step = step,
         .image = "nvcr.io/nvidia/pytorch:25.03-py3",
         .environment = {},
         .compilerOptimization = false,
         .checkpointOptimization = false,
         .recompute = "full",
         .runFlags = engine ? engineRunFlags(step) : std::vector<std::string>{}});
  }
  plan.jobs = planJobs(repeats, ".sh", engine);
  return plan;
}

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

// The engine's events: a start naming `steps`, then `done` steps of
// `seconds` each at 1000 tokens per step for the whole group.
std::string engineEvents(int steps, int done, double seconds) {
  std::string text = R"({"event":"start","config":{"steps":)" + std::to_string(steps) +
                     R"(,"threads":1},"flops_per_token":1000.0})" + "\n";
  for (int step = 1; step <= done; ++step) {
    text += R"({"event":"step","step":)" + std::to_string(step) + R"(,"loss":)" +
            std::to_string(6.0 - 0.5 * step) + R"(,"step_time_s":)" + std::to_string(seconds) +
            R"(,"tokens_per_s":)" + std::to_string(1000.0 / seconds) +
            R"(,"peak_bytes":1073741824})" + "\n";
  }
  return text;
}

std::string summary(const std::string& status, const std::string& message = "") {
  return R"({"status":")" + status + R"(","message":")" + message +
         R"(","tokens_per_s":1.0,"step_time_s":1.0})";
}

class ClusterCollect : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("tb_cluster_collect_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void savePlan(const ClusterPlan& plan) {
    plan_ = plan;
    ASSERT_TRUE(writeFileAtomically(root_ / kClusterPlanFile, clusterPlanToJson(plan)).ok());
  }
  fs::path runDir(int order) const {
    return root_ / plan_.jobs.at(static_cast<std::size_t>(order)).runDir;
  }
  fs::path log(int order) const {
    return root_ / plan_.jobs.at(static_cast<std::size_t>(order)).log;
  }
  const JobReading& job(const CollectedPlan& collected, int order) const {
    return collected.jobs.at(static_cast<std::size_t>(order));
  }

  fs::path root_;
  ClusterPlan plan_;
};

TEST_F(ClusterCollect, EveryJobGetsAStateFromItsOwnFiles) {
  savePlan(planOf(true, 1));
  write(runDir(0) / "events.jsonl", engineEvents(4, 4, 0.5));
  write(runDir(0) / "summary.json", summary("completed"));
  write(runDir(1) / "events.jsonl", engineEvents(4, 2, 0.5));
  write(runDir(1) / "summary.json", summary("interrupted", "stopped by SIGTERM at step 2"));
  write(runDir(2) / "events.jsonl", engineEvents(4, 3, 0.5));  // no summary: still going
  write(root_ / "submitted.tsv", "0\t101\n1\t102\n2\t103\n");

  const auto collected = readPlanFolder(root_);
  ASSERT_TRUE(collected.ok()) << collected.error().message;
  ASSERT_EQ(collected->jobs.size(), 4U);
  EXPECT_EQ(job(*collected, 0).state, JobState::Completed);
  EXPECT_EQ(job(*collected, 0).submittedId, "101");
  EXPECT_EQ(job(*collected, 0).records, 4);
  EXPECT_EQ(job(*collected, 0).lastStep, 4);
  EXPECT_EQ(job(*collected, 0).plannedSteps, 4);
  EXPECT_EQ(job(*collected, 1).state, JobState::Interrupted);
  EXPECT_EQ(job(*collected, 1).reason, "stopped by SIGTERM at step 2");
  EXPECT_EQ(job(*collected, 2).state, JobState::Unfinished);
  EXPECT_EQ(job(*collected, 2).lastStep, 3);
  EXPECT_FALSE(hasEnded(job(*collected, 2).state));
  EXPECT_EQ(job(*collected, 3).state, JobState::NotStarted);
  EXPECT_TRUE(job(*collected, 3).submittedId.empty());
  EXPECT_EQ(toString(job(*collected, 3).state), "not-started");
}

TEST_F(ClusterCollect, OnlyCompletedJobsBecomeConfigurations) {
  savePlan(planOf(true, 1));
  for (int order = 0; order < 3; ++order) {
    write(runDir(order) / "events.jsonl", engineEvents(8, 8, 0.5 / (order + 1)));
    write(runDir(order) / "summary.json", summary("completed"));
  }
  write(runDir(3) / "events.jsonl", engineEvents(8, 8, 0.1));
  write(runDir(3) / "summary.json", summary("oom", "over the budget"));

  const auto collected = readPlanFolder(root_);
  ASSERT_TRUE(collected.ok()) << collected.error().message;
  const AblationResults& results = collected->results;
  EXPECT_EQ(results.plannedRuns, 4);
  EXPECT_EQ(results.completedRuns, 3);
  EXPECT_FALSE(results.complete);
  EXPECT_EQ(results.steps, 8);
  EXPECT_EQ(results.warmupSteps, 2);  // a quarter of 8
  ASSERT_EQ(results.configurations.size(), 3U);
  EXPECT_EQ(results.configurations[0].label, "Base");
  EXPECT_EQ(results.configurations[2].label, "AC2+CompilerOpt");
  // 2000 tokens/s for the group of two workers is 1000 per worker.
  const ClusterRun& base = *job(*collected, 0).run;
  EXPECT_NEAR(base.tokensPerSPerGpu.value_or(0.0), 1000.0, 1e-3);
  EXPECT_NEAR(*base.peakMemoryGib, 1.0, 1e-9);
  EXPECT_EQ(base.lossCurve.size(), 8U);
  EXPECT_EQ(job(*collected, 3).state, JobState::Oom);
  // The job that ran out of memory keeps its numbers so far; they are not a configuration.
  EXPECT_TRUE(job(*collected, 3).run.has_value());
}

TEST_F(ClusterCollect, AGivenWarmupIsUsed) {
  savePlan(planOf(true, 1));
  write(runDir(0) / "events.jsonl", engineEvents(8, 8, 0.5));
  write(runDir(0) / "summary.json", summary("completed"));
  const auto collected = readPlanFolder(root_, {.warmupSteps = 6, .skipFirst = {}});
  ASSERT_TRUE(collected.ok()) << collected.error().message;
  EXPECT_EQ(collected->results.warmupSteps, 6);
  EXPECT_NE(job(*collected, 0).run->notes.find("after the first 6"), std::string::npos);
}

TEST_F(ClusterCollect, ALauncherThatStartedButWroteNoEventsIsUnfinished) {
  savePlan(planOf(true, 1));
  write(log(0), "W1206 torchrun: starting 2 workers\n");
  const auto collected = readPlanFolder(root_);
  ASSERT_TRUE(collected.ok());
  EXPECT_EQ(job(*collected, 0).state, JobState::Unfinished);
  EXPECT_FALSE(job(*collected, 0).reason.empty());
}

TEST_F(ClusterCollect, ANonZeroExitOutranksALogThatLooksComplete) {
  savePlan(planOf(true, 1));
  write(runDir(0) / "events.jsonl", engineEvents(4, 4, 0.5));
  write(runDir(0) / "summary.json", summary("completed"));
  write(runDir(1) / "events.jsonl", engineEvents(4, 1, 0.5));
  write(log(1),
        "Traceback (most recent call last):\nRuntimeError: Gloo connectFullMesh failed\n\n");
  write(root_ / "finished.tsv", "0\t4242\t0\n1\t4243\t1\n");
  const auto collected = readPlanFolder(root_);
  ASSERT_TRUE(collected.ok());
  EXPECT_EQ(job(*collected, 0).state, JobState::Completed);
  EXPECT_EQ(job(*collected, 1).state, JobState::Failed);
  EXPECT_EQ(job(*collected, 1).reason,
            "the launcher exited with status 1; node 0's log ends: RuntimeError: Gloo "
            "connectFullMesh failed");
  EXPECT_EQ(job(*collected, 1).launcherExit, 1);
  EXPECT_EQ(job(*collected, 0).launcherExit, 0);
}

TEST_F(ClusterCollect, AFrameworkLogIsReadByItsOwnFormat) {
  savePlan(planOf(false, 1));
  const fs::path fixture =
      fs::path(TB_LOG_FIXTURES) / "torchtitan" / "torchtitan_2025-06_rank0_tflops.log";
  fs::create_directories(log(0).parent_path());
  fs::copy_file(fixture, log(0));
  write(log(1), "Traceback (most recent call last):\n  File \"train.py\"\n");
  const auto collected = readPlanFolder(root_);
  ASSERT_TRUE(collected.ok()) << collected.error().message;
  EXPECT_EQ(job(*collected, 0).state, JobState::Completed) << job(*collected, 0).reason;
  EXPECT_GT(job(*collected, 0).records, 0);
  ASSERT_TRUE(job(*collected, 0).run.has_value());
  EXPECT_GT(job(*collected, 0).run->tokensPerSPerGpu.value_or(0.0), 0.0);
  EXPECT_EQ(job(*collected, 1).state, JobState::Unfinished);
  EXPECT_EQ(job(*collected, 2).state, JobState::NotStarted);
  EXPECT_EQ(collected->results.completedRuns, 1);
}

TEST_F(ClusterCollect, AnUnreadableRunDirectoryNamesWhy) {
  savePlan(planOf(true, 1));
  fs::create_directories(runDir(0) / "events.jsonl");  // a folder where the file should be
  const auto collected = readPlanFolder(root_);
  ASSERT_TRUE(collected.ok());
  EXPECT_EQ(job(*collected, 0).state, JobState::Unreadable);
  EXPECT_FALSE(job(*collected, 0).reason.empty());
}

TEST_F(ClusterCollect, AFolderWithoutAPlanIsAnError) {
  const auto collected = readPlanFolder(root_);
  ASSERT_FALSE(collected.ok());
  EXPECT_NE(collected.error().message.find("plan.json"), std::string::npos)
      << collected.error().message;
}

}  // namespace
}  // namespace tb::bench
