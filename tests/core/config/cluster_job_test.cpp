// The plan's job files, parsed back (shell words, yaml-cpp) and checked by
// the real shells: what each node runs, in which image, with which
// environment, and where its output goes.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "artifact_parsing.hpp"
#include "tb/catalog/catalog_loader.hpp"
#include "tb/common/subprocess.hpp"
#include "tb/config/cluster_job.hpp"

namespace tb::config {
namespace {

using test::parseShellCommands;

ClusterJob jobFor(int nodes, ContainerRuntime container, bool checkpointOptimization = false) {
  ImageConfig config;
  config.tag = "25.09";
  config.nodes = nodes;
  config.gpusPerPod = 8;
  config.checkpointOptimization = checkpointOptimization;
  auto resolved = resolveConfig(config, catalog::builtinCatalog());
  EXPECT_TRUE(resolved.ok()) << resolved.error().message;
  return ClusterJob{.resolved = *resolved,
                    .imageReference = "nvcr.io/nvidia/pytorch:25.03-py3",
                    .environment = {{"TB_ABLATION_LABEL", "Base"}},
                    .command = {"trainbench", "run", "--model", "tiny", "--run-dir",
                                "logs/Base/1/run", "--nproc-per-node", "8"},
                    .name = "tb-base-1",
                    .logDir = "logs/Base/1",
                    .container = container,
                    .requestGpus = true,
                    .timeLimitMinutes = 30};
}

std::vector<std::string> commandStartingWith(const std::string& script, const std::string& word) {
  for (auto& command : parseShellCommands(script)) {
    if (!command.empty() && command.front() == word) return command;
  }
  return {};
}

bool contains(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

std::string directives(const std::string& script) {
  std::string lines;
  std::size_t at = 0;
  while ((at = script.find("#SBATCH ", at)) != std::string::npos) {
    const std::size_t end = script.find('\n', at);
    lines += script.substr(at, end - at) + "\n";
    at = end;
  }
  return lines;
}

int shellCheck(const std::string& shell, const std::string& script) {
  auto result = runProcess({shell, "-n", "-c", script});
  EXPECT_TRUE(result.ok());
  return result.ok() ? result->exitCode : -1;
}

TEST(SlurmJob, PyxisRunsTheCommandInTheGivenImageWithEachNodesLog) {
  const std::string script =
      slurmJobArtifact(jobFor(1, ContainerRuntime::Pyxis), "j.sbatch").content;
  EXPECT_EQ(shellCheck("/bin/bash", script), 0) << script;
  const std::string lines = directives(script);
  EXPECT_NE(lines.find("--job-name=tb-base-1"), std::string::npos) << lines;
  EXPECT_NE(lines.find("--gpus-per-node=8"), std::string::npos) << lines;
  EXPECT_NE(lines.find("--output=logs/Base/1/job.out"), std::string::npos) << lines;
  EXPECT_NE(lines.find("--time=30"), std::string::npos) << lines;
  const auto srun = commandStartingWith(script, "srun");
  ASSERT_FALSE(srun.empty()) << script;
  EXPECT_TRUE(contains(srun, "--container-image=nvcr.io#nvidia/pytorch:25.03-py3"));
  EXPECT_TRUE(contains(srun, "--output=logs/Base/1/node-%n.log"));
  EXPECT_TRUE(contains(srun, "--container-env=NCCL_SOCKET_IFNAME,TB_ABLATION_LABEL"));
  const auto run = std::find(srun.begin(), srun.end(), "trainbench");
  ASSERT_NE(run, srun.end());
  EXPECT_EQ(std::vector<std::string>(run, srun.end()), jobFor(1, ContainerRuntime::None).command);
  std::vector<std::string> exported;
  for (const auto& command : parseShellCommands(script)) {
    if (command.size() == 2 && command[0] == "export") exported.push_back(command[1]);
  }
  EXPECT_EQ(exported,
            (std::vector<std::string>{"NCCL_SOCKET_IFNAME=eth0", "TB_ABLATION_LABEL=Base"}));
}

TEST(SlurmJob, ApptainerWrapsTheCommandAndBareMetalRunsItAsItIs) {
  const std::string apptainer =
      slurmJobArtifact(jobFor(1, ContainerRuntime::Apptainer), "j.sbatch").content;
  const auto wrapped = commandStartingWith(apptainer, "srun");
  const auto exec = std::find(wrapped.begin(), wrapped.end(), "apptainer");
  ASSERT_NE(exec, wrapped.end()) << apptainer;
  EXPECT_EQ(*(exec + 3), "docker://nvcr.io/nvidia/pytorch:25.03-py3");
  EXPECT_EQ(*(exec + 4), "trainbench");
  EXPECT_EQ(apptainer.find("--container-image"), std::string::npos);

  ClusterJob bare = jobFor(1, ContainerRuntime::None);
  bare.requestGpus = false;
  const std::string none = slurmJobArtifact(bare, "j.sbatch").content;
  EXPECT_EQ(directives(none).find("--gpus-per-node"), std::string::npos) << none;
  const auto srun = commandStartingWith(none, "srun");
  EXPECT_FALSE(contains(srun, "apptainer"));
  EXPECT_EQ(none.find("--container"), std::string::npos);
  EXPECT_TRUE(contains(srun, "trainbench"));
}

// With several nodes the command runs under bash -c per task, so each node
// takes NODE_RANK from its own SLURM_NODEID; node 0's address is set once.
TEST(SlurmJob, SeveralNodesExpandTheRankPerTask) {
  ClusterJob job = jobFor(2, ContainerRuntime::Pyxis);
  job.command = {"trainbench",   "run",           "--node-rank",
                 "${NODE_RANK}", "--master-addr", "${MASTER_ADDR}"};
  const std::string script = slurmJobArtifact(job, "j.sbatch").content;
  EXPECT_EQ(shellCheck("/bin/bash", script), 0) << script;
  EXPECT_NE(directives(script).find("--nodes=2"), std::string::npos);
  const auto srun = commandStartingWith(script, "srun");
  ASSERT_GE(srun.size(), 3U);
  EXPECT_EQ(srun[srun.size() - 3], "bash");
  EXPECT_EQ(srun[srun.size() - 2], "-c");
  EXPECT_NE(srun.back().find("export NODE_RANK=\"${SLURM_NODEID}\"; exec trainbench run"),
            std::string::npos)
      << srun.back();
  EXPECT_EQ(shellCheck("/bin/bash", srun.back()), 0);
  EXPECT_NE(script.find("MASTER_ADDR=$(scontrol show hostnames"), std::string::npos);
}

TEST(KubernetesJob, IsAnIndexedJobInTheGivenImageWithItsServiceForSeveralNodes) {
  const ClusterJob job = jobFor(2, ContainerRuntime::Pyxis, true);
  const std::string text = kubernetesJobArtifact(job, "j.yaml").content;
  const std::vector<YAML::Node> documents = YAML::LoadAll(text);
  ASSERT_EQ(documents.size(), 2U) << text;
  EXPECT_EQ(documents[0]["kind"].as<std::string>(), "Service");
  EXPECT_EQ(documents[0]["metadata"]["name"].as<std::string>(), "tb-base-1");
  const YAML::Node manifest = documents[1];
  EXPECT_EQ(manifest["kind"].as<std::string>(), "Job");
  EXPECT_EQ(manifest["spec"]["completionMode"].as<std::string>(), "Indexed");
  EXPECT_EQ(manifest["spec"]["completions"].as<int>(), 2);
  EXPECT_EQ(manifest["spec"]["activeDeadlineSeconds"].as<int>(), 1800);
  const YAML::Node pod = manifest["spec"]["template"]["spec"];
  EXPECT_EQ(pod["subdomain"].as<std::string>(), "tb-base-1");
  const YAML::Node container = pod["containers"][0];
  EXPECT_EQ(container["image"].as<std::string>(), "nvcr.io/nvidia/pytorch:25.03-py3");
  EXPECT_FALSE(container["command"]) << "command: would skip the image's entrypoint";
  EXPECT_EQ(container["args"][0].as<std::string>(), "trainbench");
  std::map<std::string, std::string> env;
  for (const YAML::Node& var : container["env"]) {
    if (var["value"]) env[var["name"].as<std::string>()] = var["value"].as<std::string>();
  }
  EXPECT_EQ(env["CHECKPOINT_OPTIMIZATION"], "true");
  EXPECT_EQ(env["TB_ABLATION_LABEL"], "Base");
  EXPECT_EQ(env["MASTER_ADDR"], "tb-base-1-0.tb-base-1");
  EXPECT_EQ(container["resources"]["limits"]["nvidia.com/gpu"].as<int>(), 8);
}

TEST(KubernetesJob, OneNodeIsAJobWithoutAService) {
  const std::vector<YAML::Node> documents =
      YAML::LoadAll(kubernetesJobArtifact(jobFor(1, ContainerRuntime::Pyxis), "j.yaml").content);
  ASSERT_EQ(documents.size(), 1U);
  EXPECT_EQ(documents[0]["kind"].as<std::string>(), "Job");
  EXPECT_FALSE(documents[0]["spec"]["template"]["spec"]["subdomain"]);
}

// The script is run for real: it must put this node's output in its own log
// and pass the variables on.
TEST(TorchrunJob, RunsTheLauncherWithItsOutputInThisNodesLog) {
  namespace fs = std::filesystem;
  ClusterJob job = jobFor(1, ContainerRuntime::None);
  job.command = {"sh", "-c", "echo \"rank=$NODE_RANK label=$TB_ABLATION_LABEL\"; echo oops >&2"};
  const fs::path dir =
      fs::temp_directory_path() / ("tb-torchrun-job-" + std::to_string(::getpid()));
  fs::create_directories(dir / "logs/Base/1");
  const std::string script = torchrunJobArtifact(job, "j.sh").content;
  EXPECT_EQ(shellCheck("/bin/sh", script), 0) << script;
  auto result = runProcess({"/bin/sh", "-c", "cd " + dir.string() + " && sh -s", "--"},
                           ProcessOptions{.timeout = std::chrono::seconds(20),
                                          .environment = {},
                                          .unsetEnvironment = {"NODE_RANK"},
                                          .standardInput = script});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->exitCode, 0) << result->standardError;
  std::ifstream log(dir / nodeLogPath(job, 0));
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "rank=0 label=Base\noops\n");
  fs::remove_all(dir);
}

TEST(ContainerRuntime, NamesRoundTripAndABadOneIsNamed) {
  for (ContainerRuntime runtime :
       {ContainerRuntime::Pyxis, ContainerRuntime::Apptainer, ContainerRuntime::None}) {
    EXPECT_EQ(*parseContainerRuntime(toString(runtime)), runtime);
  }
  const auto bad = parseContainerRuntime("docker");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::BadInput);
  EXPECT_NE(bad.error().message.find("'docker'"), std::string::npos);
  EXPECT_NE(bad.error().message.find("pyxis, apptainer, none"), std::string::npos);
}

}  // namespace
}  // namespace tb::config
