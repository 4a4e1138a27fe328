// `trainbench ablation plan`: the plan folder it writes (plan.json, one job
// file per configuration and repeat, the log folders, submit.sh), the job
// files checked by the shells and by `trainbench validate`, bad input refused
// with nothing written, and a torchrun plan run for real by its submit.sh.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_runner.hpp"
#include "tb/common/subprocess.hpp"

namespace tb::cli::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path planScratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("tb_cli_ablation_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

std::string planFileText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int shellSyntaxCheck(const std::string& shell, const fs::path& script) {
  auto result = runProcess({shell, "-n", script.string()});
  EXPECT_TRUE(result.ok());
  return result.ok() ? result->exitCode : -1;
}

json planOf(const std::vector<std::string>& extra, const fs::path& out) {
  std::vector<std::string> args = {"ablation", "plan", "--out", out.string(), "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const CliRun run = runCli(args);
  EXPECT_EQ(run.exitCode, 0) << run.err;
  return parseSingleDocument(run);
}

TEST(CliAblationPlan, SlurmPlanHasFourConfigurationsInterleavedWithTheirFiles) {
  const fs::path out = planScratch("slurm");
  const json plan = planOf({"--image", "25.09", "--scheduler", "slurm", "--repeats", "2", "--nodes",
                            "2", "--model", "small", "--steps", "50"},
                           out);
  ASSERT_TRUE(plan.is_object());
  EXPECT_EQ(plan.at("folder"), out.string());
  EXPECT_EQ(plan.at("release"), "25.09");
  EXPECT_EQ(plan.at("container"), "pyxis");
  const json& configurations = plan.at("configurations");
  ASSERT_EQ(configurations.size(), 4U);
  EXPECT_EQ(configurations[0].at("image"), "nvcr.io/nvidia/pytorch:25.03-py3");
  EXPECT_TRUE(configurations[1].at("image").get<std::string>().ends_with(":25.09-serverless"));
  EXPECT_EQ(configurations[3].at("recompute"), "auto");
  const json& jobs = plan.at("jobs");
  ASSERT_EQ(jobs.size(), 8U);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const json& job = jobs[i];
    EXPECT_EQ(job.at("label"), configurations[i % 4].at("label"));
    const fs::path file = out / job.at("job_file").get<std::string>();
    ASSERT_TRUE(fs::exists(file)) << file;
    EXPECT_EQ(shellSyntaxCheck("/bin/bash", file), 0);
    EXPECT_TRUE(fs::is_directory(out / job.at("log_dir").get<std::string>()));
    const std::string script = planFileText(file);
    EXPECT_NE(script.find("--run-dir " + job.at("run_dir").get<std::string>()), std::string::npos)
        << script;
    EXPECT_NE(script.find("--steps 50"), std::string::npos);
    const bool ckpt = i % 4 == 3;
    EXPECT_EQ(script.find("CHECKPOINT_OPTIMIZATION=true") != std::string::npos, ckpt) << script;
    EXPECT_EQ(script.find("--recompute auto") != std::string::npos, ckpt) << script;
  }
  EXPECT_NE(planFileText(out / jobs[0].at("job_file").get<std::string>())
                .find("--container-image=nvcr.io#nvidia/pytorch:25.03-py3"),
            std::string::npos);
  EXPECT_EQ(shellSyntaxCheck("/bin/sh", out / "submit.sh"), 0);
  EXPECT_NE(fs::status(out / "submit.sh").permissions() & fs::perms::owner_exec, fs::perms::none);
  EXPECT_EQ(json::parse(planFileText(out / "plan.json")).at("jobs").size(), 8U);
  fs::remove_all(out);
}

// The manifests are what `trainbench validate` accepts for the image.
TEST(CliAblationPlan, KubernetesJobsPassValidate) {
  const fs::path out = planScratch("k8s");
  const json plan = planOf(
      {"--image", "25.09", "--scheduler", "k8s", "--repeats", "1", "--nodes", "2", "--gpus", "8"},
      out);
  ASSERT_EQ(plan.at("jobs").size(), 4U);
  EXPECT_EQ(plan.at("container"), "image");
  for (const json& job : plan.at("jobs")) {
    const fs::path file = out / job.at("job_file").get<std::string>();
    const CliRun run = runCli({"validate", file.string()});
    EXPECT_EQ(run.exitCode, 0) << file << "\n" << run.out << run.err;
  }
  EXPECT_NE(planFileText(out / "submit.sh").find("kubectl create -f"), std::string::npos);
  fs::remove_all(out);
}

TEST(CliAblationPlan, ReleaseWithoutABaseImageTakesTheOneGiven) {
  const fs::path out = planScratch("base");
  const json plan = planOf({"--image", "25.06", "--scheduler", "torchrun", "--base-image",
                            "nvcr.io/nvidia/pytorch:25.05-py3"},
                           out);
  EXPECT_EQ(plan.at("configurations")[0].at("image"), "nvcr.io/nvidia/pytorch:25.05-py3");
  EXPECT_EQ(plan.at("container"), "none");
  fs::remove_all(out);
}

struct BadPlan {
  std::vector<std::string> args;
  std::string named;  ///< the message must contain this
};

TEST(CliAblationPlan, BadInputIsNamedWithExitTwoAndNothingWritten) {
  const std::vector<BadPlan> cases = {
      {{"--image", "99.99", "--scheduler", "slurm"}, "99.99"},
      {{"--image", "25.09", "--scheduler", "pbs"}, "--scheduler: 'pbs'"},
      {{"--image", "25.09", "--scheduler", "torchrun", "--container", "pyxis"}, "--container"},
      {{"--image", "25.09", "--scheduler", "k8s", "--container", "apptainer"}, "'apptainer'"},
      {{"--image", "25.09", "--scheduler", "slurm", "--container", "docker"}, "'docker'"},
      {{"--image", "25.09", "--scheduler", "slurm", "--repeats", "0"}, "--repeats: '0'"},
      {{"--image", "25.09", "--scheduler", "slurm", "--gpus", "3"}, "--gpus"},
      {{"--image", "25.09", "--scheduler", "slurm", "--device", "tpu"}, "--device: 'tpu'"},
      {{"--image", "25.09", "--scheduler", "slurm", "--model", "huge"}, "huge"},
      {{"--image", "25.06", "--scheduler", "slurm"}, "--base-image"},
      {{"--image", "25.09", "--scheduler", "slurm", "--ckpt-recompute", "full"},
       "--ckpt-recompute: for a command after --"},
      {{"--image", "25.09", "--scheduler", "slurm", "--ckpt-recompute", "full", "--", "python",
        "train.py"},
       "--ckpt-recompute and --profile go together"},
      {{"--image", "25.09", "--scheduler", "slurm", "--profile", "megatron", "--ckpt-recompute",
        "op", "--", "python", "train.py"},
       "--ckpt-recompute: 'op' has no spelling in megatron"},
      {{"--image", "25.09", "--scheduler", "slurm", "--profile", "jax", "--ckpt-recompute", "full",
        "--", "python", "train.py"},
       "--profile: "},
  };
  for (const BadPlan& bad : cases) {
    const fs::path out = planScratch("bad");
    std::vector<std::string> args = {"ablation", "plan", "--out", out.string()};
    args.insert(args.end(), bad.args.begin(), bad.args.end());
    const CliRun run = runCli(args);
    EXPECT_EQ(run.exitCode, 2) << bad.named << ": " << run.err;
    EXPECT_NE(run.err.find(bad.named), std::string::npos) << run.err;
    EXPECT_TRUE(run.out.empty()) << run.out;
    EXPECT_FALSE(fs::exists(out)) << bad.named;
  }
}

// A user's Megatron command: +CkptOpt's policy reaches it spelled as
// Megatron's flags, in plan.json and in that job's environment only.
TEST(CliAblationPlan, CkptOptRecomputeIsSpelledTheFrameworksWay) {
  const fs::path out = planScratch("spelling");
  const json plan =
      planOf({"--image", "25.09", "--scheduler", "slurm", "--repeats", "1", "--profile", "megatron",
              "--ckpt-recompute", "selective", "--", "torchrun", "pretrain_gpt.py"},
             out);
  const json& configurations = plan.at("configurations");
  ASSERT_EQ(configurations.size(), 4U);
  EXPECT_EQ(configurations[3].at("recompute"), "--recompute-granularity selective");
  EXPECT_EQ(configurations[1].at("recompute"), "full");
  for (const json& job : plan.at("jobs")) {
    const std::string script = planFileText(out / job.at("job_file").get<std::string>());
    const bool ckpt = job.at("label") == "AC2+CompilerOpt+CkptOpt";
    EXPECT_EQ(script.find("'TB_RECOMPUTE_SPELLING=--recompute-granularity selective'") !=
                  std::string::npos,
              ckpt)
        << script;
    EXPECT_EQ(script.find("TB_RECOMPUTE=selective") != std::string::npos, ckpt) << script;
  }
  fs::remove_all(out);
}

TEST(CliAblationPlan, AFolderHoldingAPlanIsRefusedAndKept) {
  const fs::path out = planScratch("twice");
  planOf({"--image", "25.09", "--scheduler", "slurm", "--repeats", "1"}, out);
  const std::string before = planFileText(out / "plan.json");
  const CliRun again =
      runCli({"ablation", "plan", "--image", "25.04", "--scheduler", "k8s", "--out", out.string()});
  EXPECT_EQ(again.exitCode, 2);
  EXPECT_NE(again.err.find("already holds a plan"), std::string::npos) << again.err;
  EXPECT_EQ(planFileText(out / "plan.json"), before);
  fs::remove_all(out);
}

// The torchrun plan run on this machine by its own submit.sh: the real
// torchrun (Debian's python3-torch) starting two engine workers per job, one
// job after the other in the plan's order.
TEST(CliAblationPlan, TorchrunPlanRunsLocallyInOrder) {
#ifndef TB_TEST_WITH_ENGINE
  GTEST_SKIP() << "this build has no training engine";
#endif
  const fs::path out = planScratch("torchrun");
  const json plan = planOf({"--image", "25.09", "--scheduler", "torchrun", "--repeats", "1",
                            "--gpus", "2", "--device", "cpu", "--model", "tiny", "--steps", "3"},
                           out);
  ASSERT_EQ(plan.at("jobs").size(), 4U);
  ProcessOptions options;
  options.timeout = std::chrono::seconds(400);
  const std::string programDir = fs::path(TRAINBENCH_EXE).parent_path().string();
  options.environment = {{"PATH", programDir + ":" + std::string(std::getenv("PATH"))},
                         {"LC_ALL", "C"},
                         // torchrun takes each option from PET_<NAME> too. Single-bit
                         // redirects: torchrun 1.13's defaults crash under Python 3.11
                         // (pytorch#92319); a port of this test's own.
                         {"PET_REDIRECTS", "2"},
                         {"PET_TEE", "1"},
                         {"PET_LOG_DIR", (out / "torchrun-logs").string()},
                         {"PET_MASTER_PORT", std::to_string(freeLoopbackPort())},
                         {"OMP_NUM_THREADS", "1"}};
  auto result = runProcess({"sh", (out / "submit.sh").string()}, options);
  ASSERT_TRUE(result.ok());
  ASSERT_FALSE(result->timedOut);
  EXPECT_EQ(result->exitCode, 0) << result->standardError;
  EXPECT_EQ(planFileText(out / "finished.tsv").size() > 0, true);
  std::istringstream finished(planFileText(out / "finished.tsv"));
  std::string line;
  int order = 0;
  while (std::getline(finished, line)) {
    EXPECT_TRUE(line.starts_with(std::to_string(order) + "\t")) << line;
    EXPECT_TRUE(line.ends_with("\t0")) << line;
    ++order;
  }
  EXPECT_EQ(order, 4);
  for (const json& job : plan.at("jobs")) {
    const fs::path runDir = out / job.at("run_dir").get<std::string>();
    const json summary = json::parse(planFileText(runDir / "summary.json"), nullptr, false);
    ASSERT_TRUE(summary.is_object()) << runDir << "\n"
                                     << planFileText(out / job.at("log").get<std::string>());
    EXPECT_EQ(summary.at("status"), "completed") << job.at("label");
    EXPECT_EQ(summary.at("world_size"), 2);
    EXPECT_FALSE(planFileText(out / job.at("log").get<std::string>()).empty());
  }

  const CliRun status = runCli({"ablation", "status", out.string(), "--json"});
  ASSERT_EQ(status.exitCode, 0) << status.err;
  const json statusDocument = parseSingleDocument(status);
  for (const json& job : statusDocument.at("jobs")) {
    EXPECT_EQ(job.at("state"), "completed") << job;
    EXPECT_EQ(job.at("scheduler_state"), "exited 0") << job;
    EXPECT_EQ(job.at("last_step"), 3) << job;
  }
  const CliRun collected = runCli({"ablation", "collect", out.string()});
  ASSERT_EQ(collected.exitCode, 0) << collected.err;
  EXPECT_NE(collected.out.find("4 jobs: 4 completed"), std::string::npos) << collected.out;
  EXPECT_NE(collected.out.find("vs Base"), std::string::npos) << collected.out;
  const json results = json::parse(planFileText(out / "results.json"), nullptr, false);
  ASSERT_TRUE(results.is_object());
  EXPECT_EQ(results.at("complete"), true);
  ASSERT_EQ(results.at("configurations").size(), 4U);
  EXPECT_EQ(results.at("configurations")[3].at("label"), "AC2+CompilerOpt+CkptOpt");
  EXPECT_FALSE(planFileText(out / "report.html").empty());
  fs::remove_all(out);
}

TEST(CliAblationCollect, BeforeAnyJobCompletedNothingIsWritten) {
  const fs::path out = planScratch("collect_early");
  planOf({"--image", "25.09", "--scheduler", "slurm", "--repeats", "1", "--model", "tiny"}, out);
  const CliRun status = runCli({"ablation", "status", out.string()});
  EXPECT_EQ(status.exitCode, 0) << status.err;
  EXPECT_NE(status.out.find("4 jobs: 4 not-started"), std::string::npos) << status.out;
  const CliRun collected = runCli({"ablation", "collect", out.string()});
  EXPECT_EQ(collected.exitCode, 1);
  EXPECT_NE(collected.err.find("no job of the plan has completed yet"), std::string::npos)
      << collected.err;
  EXPECT_FALSE(fs::exists(out / "results.json"));
  EXPECT_FALSE(fs::exists(out / "report.html"));
  fs::remove_all(out);
}

TEST(CliAblationCollect, BadInputNamesTheValue) {
  const fs::path out = planScratch("collect_bad");
  const CliRun missing = runCli({"ablation", "collect", out.string()});
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_NE(missing.err.find("'" + out.string() + "' holds no plan"), std::string::npos)
      << missing.err;
  planOf({"--image", "25.09", "--scheduler", "torchrun", "--model", "tiny"}, out);
  const CliRun warmup = runCli({"ablation", "collect", out.string(), "--warmup", "-1"});
  EXPECT_EQ(warmup.exitCode, 2);
  EXPECT_NE(warmup.err.find("--warmup: '-1'"), std::string::npos) << warmup.err;
  const CliRun status = runCli({"ablation", "status", (out / "nothing").string()});
  EXPECT_EQ(status.exitCode, 2);
  fs::remove_all(out);
}

}  // namespace
}  // namespace tb::cli::test
