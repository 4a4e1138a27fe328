// The cluster ablation on a real Slurm: a one-host slurmctld and slurmd
// started by the test, the plan's own submit.sh handing the four jobs to
// sbatch, the engine training in each (the tiny model on the CPU, two
// workers), and one job cancelled with scancel while it trains.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli_runner.hpp"
#include "slurm_cluster.hpp"

namespace tb::cli::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string slurmTestText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Job ids by plan order, from submitted.tsv.
std::vector<std::string> submittedIds(const fs::path& plan) {
  std::vector<std::string> ids;
  std::istringstream lines(slurmTestText(plan / "submitted.tsv"));
  std::string order;
  std::string id;
  while (lines >> order >> id) ids.push_back(id);
  return ids;
}

bool ended(const std::optional<SlurmJobState>& job) {
  return job && job->state != "PENDING" && job->state != "RUNNING" && job->state != "CONFIGURING" &&
         job->state != "COMPLETING";
}

// Waits until `done` holds, polling every 200 ms, for at most `seconds`.
template <typename Done>
bool waitFor(int seconds, Done done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return done();
}

class CliAblationSlurm : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!slurmInstalled()) GTEST_FAIL() << "slurm-wlm and munge are not installed (install-deps)";
    if (::geteuid() != 0) GTEST_FAIL() << "the one-host Slurm runs its daemons as root";
    dir_ = fs::temp_directory_path() / ("tb_cli_slurm_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    if (auto failed = slurm_.start(dir_ / "slurm")) GTEST_FAIL() << *failed;
  }
  void TearDown() override {
    slurm_.stop();
    if (!HasFailure()) fs::remove_all(dir_);
  }

  fs::path dir_;
  OneHostSlurm slurm_;
};

TEST_F(CliAblationSlurm, PlanRunsInOrderAndACancelledJobKeepsItsPartialLog) {
  const fs::path plan = dir_ / "plan";
  const CliRun planned = runCli(
      {"ablation", "plan",     "--image",   "25.09",  "--scheduler", "slurm",       "--container",
       "none",     "--device", "cpu",       "--gpus", "2",           "--model",     "tiny",
       "--steps",  "200",      "--repeats", "2",      "--out",       plan.string(), "--json"});
  ASSERT_EQ(planned.exitCode, 0) << planned.err;
  const json jobs = parseSingleDocument(planned).at("jobs");

  ProcessOptions options;
  options.timeout = std::chrono::seconds(60);
  options.environment = slurm_.environment();
  options.environment["PATH"] =
      fs::path(TRAINBENCH_EXE).parent_path().string() + ":" + std::getenv("PATH");
  options.environment["OMP_NUM_THREADS"] = "1";
  auto submitted = runProcess({"sh", (plan / "submit.sh").string()}, options);
  ASSERT_TRUE(submitted.ok());
  ASSERT_EQ(submitted->exitCode, 0) << submitted->standardError;
  const std::vector<std::string> ids = submittedIds(plan);
  ASSERT_EQ(ids.size(), 8U) << slurmTestText(plan / "submitted.tsv");

  // AC2 (the second job) is cancelled once it has trained a step.
  const fs::path cancelledEvents = plan / jobs[1].at("run_dir").get<std::string>() / "events.jsonl";
  ASSERT_TRUE(waitFor(300,
                      [&] {
                        return slurmTestText(cancelledEvents).find("\"event\":\"step\"") !=
                               std::string::npos;
                      }))
      << "AC2 never trained a step; "
      << (slurm_.job(ids[1]) ? slurm_.job(ids[1])->state : "unknown to Slurm");
  ASSERT_EQ(slurm_.run({"scancel", ids[1]}).exitCode, 0);

  ASSERT_TRUE(waitFor(400, [&] {
    return std::all_of(ids.begin(), ids.end(),
                       [&](const auto& id) { return ended(slurm_.job(id)); });
  })) << "the jobs did not all end in time";

  std::vector<SlurmJobState> states;
  for (const std::string& id : ids) states.push_back(*slurm_.job(id));
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(states[i].state, i == 1 ? "CANCELLED" : "COMPLETED") << jobs[i].at("label");
    if (i > 0) {
      EXPECT_GE(states[i].startTime, states[i - 1].endTime) << "jobs overlapped";
    }
    const fs::path runDir = plan / jobs[i].at("run_dir").get<std::string>();
    const json summary = json::parse(slurmTestText(runDir / "summary.json"), nullptr, false);
    ASSERT_TRUE(summary.is_object()) << runDir;
    EXPECT_EQ(summary.at("status"), i == 1 ? "interrupted" : "completed") << jobs[i].at("label");
    EXPECT_FALSE(slurmTestText(plan / jobs[i].at("log").get<std::string>()).empty());
  }

  // What status and collect make of it: the files and Slurm agree.
  const CliRun status =
      runCli({"ablation", "status", plan.string(), "--json"}, slurm_.environment());
  ASSERT_EQ(status.exitCode, 0) << status.err;
  const json statusJobs = parseSingleDocument(status).at("jobs");
  ASSERT_EQ(statusJobs.size(), 8U);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(statusJobs[i].at("submitted_id"), ids[i]);
    EXPECT_EQ(statusJobs[i].at("scheduler_state"), states[i].state);
    EXPECT_EQ(statusJobs[i].at("state"), i == 1 ? "interrupted" : "completed");
  }
  EXPECT_EQ(statusJobs[0].at("last_step"), 200);

  const CliRun collected =
      runCli({"ablation", "collect", plan.string(), "--json"}, slurm_.environment());
  ASSERT_EQ(collected.exitCode, 0) << collected.err;
  const json document = parseSingleDocument(collected);
  EXPECT_EQ(document.at("complete"), false);
  EXPECT_EQ(document.at("jobs")[1].at("state"), "interrupted");
  EXPECT_EQ(document.at("jobs")[1].at("scheduler_state"), "CANCELLED");
  const json& configurations = document.at("configurations");
  ASSERT_EQ(configurations.size(), 4U);
  EXPECT_EQ(configurations[0].at("speedup_vs_base"), 1.0);
  for (const json& configuration : configurations) {
    // Two repeats each, but for AC2, whose first job was cancelled.
    EXPECT_EQ(configuration.at("runs"), configuration.at("label") == "AC2" ? 1 : 2)
        << configuration;
    EXPECT_GT(configuration.at("speedup_vs_base").get<double>(), 0.0) << configuration;
  }
  const json results = json::parse(slurmTestText(plan / "results.json"), nullptr, false);
  ASSERT_TRUE(results.is_object());
  EXPECT_EQ(results.at("completed_runs"), 7);
  EXPECT_EQ(results.at("planned_runs"), 8);
  std::vector<std::string> labels;
  for (const json& configuration : results.at("configurations")) {
    labels.push_back(configuration.at("label"));
    EXPECT_EQ(configuration.at("source"), "cluster");
    EXPECT_GT(configuration.at("runs")[0].at("tokens_per_s").get<double>(), 0.0);
  }
  EXPECT_EQ(labels, (std::vector<std::string>{"Base", "AC2", "AC2+CompilerOpt",
                                              "AC2+CompilerOpt+CkptOpt"}));
  EXPECT_NE(slurmTestText(plan / "report.html").find("AC2+CompilerOpt+CkptOpt"), std::string::npos);
}

}  // namespace
}  // namespace tb::cli::test
