// plan.json: the interleaved order and the paths of every job, the document
// read back as written, and what the schema and the reader refuse.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tb/bench/cluster_plan.hpp"

namespace tb::bench {
namespace {

ClusterPlan samplePlan(int repeats) {
  ClusterPlan plan;
  plan.appVersion = "0.1.0";
  plan.createdAt = "2026-12-06T03:00:00Z";
  plan.release = "25.09";
  plan.scheduler = Scheduler::Slurm;
  plan.container = "none";
  plan.nodes = 2;
  plan.gpusPerNode = 4;
  plan.repeats = repeats;
  plan.workload = {.engine = true, .model = "tiny", .device = "cpu", .command = {}};
  for (const AblationStep step : kAblationSteps) {
    plan.configurations.push_back(
        {.step = step,
         .image = step == AblationStep::Base ? "nvcr.io/nvidia/pytorch:25.03-py3" : "release",
         .environment = {{"NCCL_SOCKET_IFNAME", "eth0"}},
         .compilerOptimization = step == AblationStep::CompilerOpt,
         .checkpointOptimization = step == AblationStep::CkptOpt,
         .recompute = step == AblationStep::CkptOpt ? "auto" : "full",
         .runFlags = engineRunFlags(step)});
  }
  plan.jobs = planJobs(repeats, ".sbatch", true);
  return plan;
}

TEST(ClusterPlan, JobsAreInterleavedWithTheirOwnFilesAndLogFolders) {
  const std::vector<PlanJob> jobs = planJobs(2, ".sbatch", true);
  ASSERT_EQ(jobs.size(), 8U);
  const char* labels[] = {"Base", "AC2", "AC2+CompilerOpt", "AC2+CompilerOpt+CkptOpt"};
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].order, static_cast<int>(i));
    EXPECT_EQ(label(jobs[i].step), labels[i % 4]);
    EXPECT_EQ(jobs[i].repeat, static_cast<int>(i / 4) + 1);
  }
  EXPECT_EQ(jobs[2].name, "tb-ac2-compileropt-1");
  EXPECT_EQ(jobs[2].jobFile, "jobs/03-ac2-compileropt-1.sbatch");
  EXPECT_EQ(jobs[7].logDir, "logs/AC2+CompilerOpt+CkptOpt/2");
  EXPECT_EQ(jobs[7].log, "logs/AC2+CompilerOpt+CkptOpt/2/node-0.log");
  EXPECT_EQ(jobs[7].runDir, "logs/AC2+CompilerOpt+CkptOpt/2/run");
  EXPECT_TRUE(planJobs(1, ".yaml", false)[0].runDir.empty());
  // Job files sort in submission order past nine jobs too.
  EXPECT_EQ(planJobs(3, ".sh", true)[9].jobFile, "jobs/10-ac2-3.sh");
}

TEST(ClusterPlan, ReadsBackWhatItWrote) {
  const ClusterPlan plan = samplePlan(3);
  const std::string text = clusterPlanToJson(plan);
  const auto read = parseClusterPlan(text, "plan.json");
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(clusterPlanToJson(*read), text);
  EXPECT_EQ(read->jobs.size(), 12U);
  EXPECT_EQ(read->configurationOf(read->jobs[5]).step, AblationStep::Ac2);
  EXPECT_EQ(read->configurations[3].runFlags, engineRunFlags(AblationStep::CkptOpt));
  EXPECT_EQ(read->workload.device, "cpu");
}

TEST(ClusterPlan, RefusesWhatIsNotAPlanNamingWhere) {
  nlohmann::json document = nlohmann::json::parse(clusterPlanToJson(samplePlan(1)));
  document["jobs"][1]["label"] = "AC3";
  auto read = parseClusterPlan(document.dump(), "dir/plan.json");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::Parse);
  EXPECT_NE(read.error().message.find("dir/plan.json: $.jobs[1].label"), std::string::npos)
      << read.error().message;

  document = nlohmann::json::parse(clusterPlanToJson(samplePlan(1)));
  std::swap(document["configurations"][0], document["configurations"][1]);
  read = parseClusterPlan(document.dump(), "plan.json");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("configurations[0]: expected Base"), std::string::npos)
      << read.error().message;

  EXPECT_FALSE(parseClusterPlan("{", "plan.json").ok());
}

TEST(Scheduler, NamesRoundTripAndABadOneIsNamed) {
  for (Scheduler scheduler : {Scheduler::Slurm, Scheduler::Kubernetes, Scheduler::Torchrun}) {
    EXPECT_EQ(*parseScheduler(toString(scheduler)), scheduler);
  }
  const auto bad = parseScheduler("pbs");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "scheduler: 'pbs' is not one of slurm, k8s, torchrun");
}

}  // namespace
}  // namespace tb::bench
