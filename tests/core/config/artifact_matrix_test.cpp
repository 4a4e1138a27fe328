// Every artifact, generated for 1, 8 and 16 GPUs per pod, one and three
// nodes, and each optimization on and off, is parsed back (yaml-cpp,
// nlohmann/json, a shell-word reader) and its fields are asserted. The shell
// scripts also go through the real shells: `sh -n` / `bash -n`, and the
// sbatch script runs against stand-ins for srun and scontrol.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "artifact_parsing.hpp"
#include "tb/catalog/catalog_loader.hpp"
#include "tb/common/subprocess.hpp"
#include "tb/config/artifacts.hpp"

namespace tb::config {
namespace {

using test::flagValue;
using test::parseShellCommands;

// The word after `flag` ("--seq 4096" style), or "" when missing.
std::string optionValue(const std::vector<std::string>& words, const std::string& flag) {
  const auto found = std::find(words.begin(), words.end(), flag);
  return found == words.end() || found + 1 == words.end() ? "" : *(found + 1);
}

bool hasWord(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// The commands whose first word is `program`.
std::vector<std::vector<std::string>> commandsOf(const std::string& script,
                                                 const std::string& program) {
  std::vector<std::vector<std::string>> found;
  for (auto& command : parseShellCommands(script)) {
    if (command.front() == program) found.push_back(std::move(command));
  }
  return found;
}

// What one srun step runs in each task: its words after the srun options,
// and, with several nodes, the words of the `bash -c` script after the
// `export NODE_RANK=...; exec` that starts it. `perTask` is that script.
struct SrunStep {
  std::vector<std::string> options;  ///< srun's own, "--container-image=..."
  std::vector<std::string> command;  ///< "trainbench", "run", ...
  std::string perTask;               ///< the bash -c script; "" with one node
};

SrunStep splitSrun(const std::vector<std::string>& words) {
  SrunStep step;
  std::size_t i = 1;
  for (; i < words.size() && words[i].starts_with("--"); ++i) step.options.push_back(words[i]);
  if (i + 2 < words.size() && words[i] == "bash" && words[i + 1] == "-c") {
    step.perTask = words[i + 2];
    const auto inner = parseShellCommands(step.perTask);
    if (inner.size() == 1 && inner[0].size() > 3) {
      step.command.assign(inner[0].begin() + 3, inner[0].end());  // export, NODE_RANK=..;, exec
    }
  } else {
    step.command.assign(words.begin() + static_cast<std::ptrdiff_t>(i), words.end());
  }
  return step;
}

tb::ProcessResult runShell(const std::vector<std::string>& argv, const std::string& input = {}) {
  tb::ProcessOptions options;
  options.standardInput = input;
  auto result = tb::runProcess(argv, options);
  if (!result) throw std::runtime_error(result.error().message);
  return *result;
}

struct MatrixCase {
  int gpus;
  int nodes;
  bool compile;
  bool checkpointOpt;
};

class ArtifactMatrix : public ::testing::TestWithParam<std::tuple<int, int, bool, bool>> {
 protected:
  void SetUp() override {
    const auto [gpus, nodes, compile, checkpointOpt] = GetParam();
    param_ = {gpus, nodes, compile, checkpointOpt};
    ImageConfig config;
    config.tag = "25.09";
    config.gpusPerPod = gpus;
    config.nodes = nodes;
    config.compilerOptimization = compile;
    config.checkpointOptimization = checkpointOpt;
    config.microBatch = 2;
    config.gradientAccumulation = 4;
    auto resolved = resolveConfig(config, catalog::builtinCatalog());
    ASSERT_TRUE(resolved.ok()) << resolved.error().message;
    resolved_ = *resolved;
  }

  [[nodiscard]] std::string expectedInterface() const {
    return param_.gpus == 16 ? "hpn0" : "eth0";
  }

  MatrixCase param_{};
  ResolvedConfig resolved_;
};

TEST_P(ArtifactMatrix, EnvFileSetsInterfaceAndCheckpointOptimization) {
  const Artifact artifact = envFileArtifact(resolved_);
  EXPECT_EQ(artifact.fileName, "trainbench.env");
  const auto vars = test::parseEnvFile(artifact.content);
  EXPECT_EQ(vars.at("NCCL_SOCKET_IFNAME"), expectedInterface());
  if (param_.checkpointOpt) {
    EXPECT_EQ(vars.at("CHECKPOINT_OPTIMIZATION"), "true");
  } else {
    EXPECT_FALSE(vars.contains("CHECKPOINT_OPTIMIZATION"));
  }
}

TEST_P(ArtifactMatrix, DockerRunSelectsGpusPassesEnvAndKeepsEntrypoint) {
  const auto commands = parseShellCommands(dockerRunArtifact(resolved_).content);
  ASSERT_EQ(commands.size(), 1U);
  const auto& words = commands.front();
  ASSERT_GE(words.size(), 4U);
  EXPECT_EQ(words[0], "docker");
  EXPECT_EQ(words[1], "run");
  const auto gpus = std::find(words.begin(), words.end(), "--gpus");
  ASSERT_NE(gpus, words.end());
  EXPECT_EQ(*(gpus + 1), param_.gpus == 16  ? "all"
                         : param_.gpus == 8 ? "\"device=0,1,2,3,4,5,6,7\""
                                            : "\"device=0\"");
  const auto has = [&words](const std::string& word) {
    return std::find(words.begin(), words.end(), word) != words.end();
  };
  EXPECT_TRUE(has("NCCL_SOCKET_IFNAME=" + expectedInterface()));
  EXPECT_EQ(has("CHECKPOINT_OPTIMIZATION=true"), param_.checkpointOpt);
  EXPECT_FALSE(has("--entrypoint"));
  const auto image = std::find(words.begin(), words.end(), resolved_.imageReference);
  ASSERT_NE(image, words.end());
  ASSERT_NE(image + 1, words.end());
  EXPECT_EQ(*(image + 1), "torchrun");
  EXPECT_EQ(flagValue(words, "--nproc_per_node"), std::to_string(param_.gpus));
  EXPECT_EQ(flagValue(words, "--nnodes"), param_.nodes > 1 ? "3" : "");
  EXPECT_EQ(flagValue(words, "--node_rank"), param_.nodes > 1 ? "${NODE_RANK}" : "");
}

std::map<std::string, YAML::Node> envByName(const YAML::Node& container) {
  std::map<std::string, YAML::Node> env;
  const YAML::Node list = container["env"];
  for (std::size_t i = 0; i < list.size(); ++i) env[list[i]["name"].as<std::string>()] = list[i];
  return env;
}

TEST_P(ArtifactMatrix, KubernetesManifestIsPodOrIndexedJobWithGpusAndArgs) {
  const auto documents = YAML::LoadAll(kubernetesArtifact(resolved_).content);
  YAML::Node podSpec;
  if (param_.nodes == 1) {
    ASSERT_EQ(documents.size(), 1U);
    EXPECT_EQ(documents[0]["kind"].as<std::string>(), "Pod");
    EXPECT_EQ(documents[0]["apiVersion"].as<std::string>(), "v1");
    podSpec = documents[0]["spec"];
  } else {
    ASSERT_EQ(documents.size(), 2U);
    EXPECT_EQ(documents[0]["kind"].as<std::string>(), "Service");
    EXPECT_EQ(documents[0]["spec"]["clusterIP"].as<std::string>(), "None");
    const YAML::Node job = documents[1];
    EXPECT_EQ(job["kind"].as<std::string>(), "Job");
    EXPECT_EQ(job["apiVersion"].as<std::string>(), "batch/v1");
    EXPECT_EQ(job["spec"]["completionMode"].as<std::string>(), "Indexed");
    EXPECT_EQ(job["spec"]["completions"].as<int>(), 3);
    EXPECT_EQ(job["spec"]["parallelism"].as<int>(), 3);
    podSpec = job["spec"]["template"]["spec"];
    EXPECT_EQ(podSpec["subdomain"].as<std::string>(),
              documents[0]["metadata"]["name"].as<std::string>());
  }
  EXPECT_EQ(podSpec["restartPolicy"].as<std::string>(), "Never");
  const YAML::Node container = podSpec["containers"][0];
  EXPECT_EQ(container["image"].as<std::string>(), resolved_.imageReference);
  EXPECT_FALSE(container["command"]) << "command: would replace the image's entrypoint";
  const auto args = container["args"].as<std::vector<std::string>>();
  ASSERT_FALSE(args.empty());
  EXPECT_EQ(args[0], "torchrun");
  EXPECT_EQ(flagValue(args, "--nproc_per_node"), std::to_string(param_.gpus));
  EXPECT_EQ(flagValue(args, "--node_rank"), param_.nodes > 1 ? "$(NODE_RANK)" : "");
  EXPECT_EQ(container["resources"]["limits"]["nvidia.com/gpu"].as<int>(), param_.gpus);
  EXPECT_EQ(container["resources"]["requests"]["nvidia.com/gpu"].as<int>(), param_.gpus);
  const auto env = envByName(container);
  EXPECT_EQ(env.at("NCCL_SOCKET_IFNAME")["value"].as<std::string>(), expectedInterface());
  ASSERT_EQ(env.contains("CHECKPOINT_OPTIMIZATION"), param_.checkpointOpt);
  if (param_.checkpointOpt) {
    const YAML::Node value = env.at("CHECKPOINT_OPTIMIZATION")["value"];
    EXPECT_EQ(value.as<std::string>(), "true");
    EXPECT_EQ(value.Tag(), "!") << "an unquoted true is a YAML boolean; Kubernetes rejects it";
  }
  if (param_.nodes > 1) {
    EXPECT_EQ(env.at("NODE_RANK")["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>(),
              "metadata.annotations['batch.kubernetes.io/job-completion-index']");
    EXPECT_EQ(flagValue(args, "--master_addr"), "$(MASTER_ADDR)");
  }
}

TEST_P(ArtifactMatrix, DeepSpeedJsonBatchArithmeticAndZeroThreePrefetch) {
  const auto document = nlohmann::json::parse(deepSpeedArtifact(resolved_).content);
  EXPECT_EQ(document.at("train_micro_batch_size_per_gpu"), 2);
  EXPECT_EQ(document.at("gradient_accumulation_steps"), 4);
  EXPECT_EQ(document.at("train_batch_size"), 2 * 4 * param_.gpus * param_.nodes);
  EXPECT_EQ(document.at("bf16").at("enabled"), true);
  const auto& zero = document.at("zero_optimization");
  EXPECT_EQ(zero.at("stage"), 3);
  EXPECT_EQ(zero.at("stage3_prefetch_bucket_size"), "auto");
}

TEST_P(ArtifactMatrix, TrainingArgumentsFollowTheCompilerOptimization) {
  const auto kwargs = test::parsePythonKwargs(trainingArgsArtifact(resolved_).content);
  EXPECT_EQ(kwargs.at("torch_compile"), param_.compile ? "True" : "False");
  EXPECT_EQ(kwargs.at("bf16"), "True");
  EXPECT_EQ(kwargs.at("gradient_checkpointing"), "True");
  EXPECT_EQ(kwargs.at("per_device_train_batch_size"), "2");
  EXPECT_EQ(kwargs.at("gradient_accumulation_steps"), "4");
  EXPECT_EQ(kwargs.at("deepspeed"), "\"ds_config.json\"");
}

TEST_P(ArtifactMatrix, LaunchScriptHasBenchmarkEngineRunAndTorchrun) {
  const auto commands = parseShellCommands(launchArtifact(resolved_).content);
  ASSERT_EQ(commands.size(), 4U);  // set -eu, benchmark, trainbench run, torchrun
  EXPECT_EQ(commands[1][0], "trainbench");
  EXPECT_EQ(commands[1][1], "benchmark");
  // The flags of `trainbench benchmark` (the CLI test runs this line with --dry-run).
  EXPECT_EQ(optionValue(commands[1], "--model"), "llama3-8b");
  EXPECT_EQ(optionValue(commands[1], "--batch"), "2");
  EXPECT_EQ(optionValue(commands[1], "--seq"), "4096");
  EXPECT_EQ(optionValue(commands[1], "--device"), "cuda");
  EXPECT_TRUE(hasWord(commands[1], "--ablation"));
  EXPECT_EQ(commands[2][0], "trainbench");
  EXPECT_EQ(commands[2][1], "run");
  EXPECT_EQ(commands[3][0], "torchrun");
  EXPECT_EQ(flagValue(commands[3], "--nproc_per_node"), std::to_string(param_.gpus));
  EXPECT_EQ(flagValue(commands[3], "--nnodes"), param_.nodes > 1 ? "3" : "");
}

// The engine trained data-parallel at this shape: our launcher, one per
// node, with the launch contract torchrun's line uses (rank, node 0's
// address, port 29500).
TEST_P(ArtifactMatrix, LaunchScriptEngineLineTrainsDataParallelAtThisShape) {
  const auto commands = parseShellCommands(launchArtifact(resolved_).content);
  ASSERT_EQ(commands.size(), 4U);
  const auto& run = commands[2];
  ASSERT_GE(run.size(), 2U);
  EXPECT_EQ(run[0], "trainbench");
  EXPECT_EQ(run[1], "run");
  EXPECT_EQ(optionValue(run, "--model"), "llama3-8b");
  EXPECT_EQ(optionValue(run, "--seq"), "4096");
  EXPECT_EQ(optionValue(run, "--batch"), "2");
  EXPECT_EQ(optionValue(run, "--device"), "cuda");
  EXPECT_EQ(optionValue(run, "--nproc-per-node"), std::to_string(param_.gpus));
  EXPECT_EQ(optionValue(run, "--recompute"), param_.checkpointOpt ? "auto" : "");
  if (param_.nodes > 1) {
    EXPECT_EQ(optionValue(run, "--nnodes"), "3");
    EXPECT_EQ(optionValue(run, "--node-rank"), "${NODE_RANK}");
    EXPECT_EQ(optionValue(run, "--master-addr"), "${MASTER_ADDR}");
    EXPECT_EQ(optionValue(run, "--master-port"), "29500");
    EXPECT_EQ(flagValue(commands[3], "--master_port"), "29500");  // the same store port
  } else {
    for (const char* flag : {"--nnodes", "--node-rank", "--master-addr", "--master-port"}) {
      EXPECT_FALSE(hasWord(run, flag)) << flag;
    }
  }
  EXPECT_EQ(trainbenchRunArguments(resolved_, VariableStyle::Shell), run);
}

// `sh -n` and `bash -n` parse the scripts without running them: a quoting
// slip the word reader above would forgive fails here.
TEST_P(ArtifactMatrix, ShellScriptsPassTheShellsSyntaxCheck) {
  for (const Artifact& artifact : {dockerRunArtifact(resolved_), launchArtifact(resolved_)}) {
    const auto check = runShell({"/bin/sh", "-n"}, artifact.content);
    EXPECT_EQ(check.exitCode, 0) << artifact.fileName << ": " << check.standardError;
  }
  const std::string sbatch = slurmArtifact(resolved_).content;
  const auto check = runShell({"/bin/bash", "-n"}, sbatch);
  EXPECT_EQ(check.exitCode, 0) << check.standardError << sbatch;
  // What each task's bash runs is one quoted word of the script; check it too.
  for (const auto& srun : commandsOf(sbatch, "srun")) {
    const SrunStep step = splitSrun(srun);
    if (step.perTask.empty()) continue;
    const auto inner = runShell({"/bin/bash", "-n", "-c", step.perTask});
    EXPECT_EQ(inner.exitCode, 0) << inner.standardError << step.perTask;
  }
}

TEST_P(ArtifactMatrix, SbatchScriptHasDirectivesEnvironmentAndPerTaskRank) {
  const Artifact artifact = slurmArtifact(resolved_);
  EXPECT_EQ(artifact.kind, ArtifactKind::Slurm);
  EXPECT_EQ(artifact.fileName, "trainbench.sbatch");
  ASSERT_TRUE(artifact.content.starts_with("#!/bin/bash\n"));
  // sbatch reads #SBATCH lines only before the first command.
  std::vector<std::string> directives;
  std::istringstream lines(artifact.content);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("#SBATCH ")) directives.push_back(line.substr(8));
    else if (!line.empty() && !line.starts_with("#")) break;
  }
  EXPECT_EQ(directives, (std::vector<std::string>{
                            "--job-name=" + resolved_.objectName,
                            "--nodes=" + std::to_string(param_.nodes), "--ntasks-per-node=1",
                            "--gpus-per-node=" + std::to_string(param_.gpus), "--exclusive"}));
  // The image environment, as every artifact sets it.
  std::map<std::string, std::string> exported;
  for (const auto& command : commandsOf(artifact.content, "export")) {
    ASSERT_EQ(command.size(), 2U);
    const auto equals = command[1].find('=');
    if (equals != std::string::npos) {
      exported[command[1].substr(0, equals)] = command[1].substr(equals + 1);
    }
  }
  for (const EnvVar& var : imageEnvironment(resolved_)) {
    EXPECT_EQ(exported[var.name], var.value) << var.name;
  }
  EXPECT_EQ(exported.contains("CHECKPOINT_OPTIMIZATION"), param_.checkpointOpt);
  EXPECT_EQ(artifact.content.find("scontrol show hostnames") != std::string::npos,
            param_.nodes > 1);

  const auto steps = commandsOf(artifact.content, "srun");
  ASSERT_EQ(steps.size(), 2U);  // the engine, then torchrun
  const SrunStep engine = splitSrun(steps[0]);
  const SrunStep torchrun = splitSrun(steps[1]);
  for (const SrunStep* step : {&engine, &torchrun}) {
    EXPECT_TRUE(hasWord(step->options, "--ntasks-per-node=1"));
    EXPECT_TRUE(hasWord(step->options, "--container-entrypoint"))
        << "pyxis skips the entrypoint (CUDA forward compatibility) unless asked";
    const std::string image = flagValue(step->options, "--container-image");
    // enroot's REGISTRY#IMAGE form: the registry host ends at '#'.
    ASSERT_NE(image.find('#'), std::string::npos) << image;
    EXPECT_LT(image.find('#'), image.find('/')) << image;
    std::string reference = image;
    reference.replace(reference.find('#'), 1, "/");
    EXPECT_EQ(reference, resolved_.imageReference);
    // Per task, never expanded by the batch shell (which runs on node 0 only).
    EXPECT_EQ(step->perTask.starts_with("export NODE_RANK=\"${SLURM_NODEID}\"; exec "),
              param_.nodes > 1)
        << step->perTask;
  }
  EXPECT_EQ(engine.command, trainbenchRunArguments(resolved_, VariableStyle::Shell));
  EXPECT_EQ(torchrun.command, torchrunArguments(resolved_, VariableStyle::Shell));
}

TEST_P(ArtifactMatrix, KubernetesCommentCarriesTheEngineArgs) {
  const std::string manifest = kubernetesArtifact(resolved_).content;
  const std::string marker = "#   args: ";
  const auto at = manifest.find(marker);
  ASSERT_NE(at, std::string::npos) << manifest;
  // The comment of the Job for several nodes (after the Service), of the Pod for one.
  EXPECT_EQ(manifest.find("---\n") < at, param_.nodes > 1);
  const auto end = manifest.find('\n', at);
  const auto args = YAML::Load(manifest.substr(at + marker.size(), end - at - marker.size()))
                        .as<std::vector<std::string>>();
  EXPECT_EQ(args, trainbenchRunArguments(resolved_, VariableStyle::Kubernetes));
  EXPECT_EQ(optionValue(args, "--nproc-per-node"), std::to_string(param_.gpus));
  EXPECT_EQ(optionValue(args, "--node-rank"), param_.nodes > 1 ? "$(NODE_RANK)" : "");
  EXPECT_EQ(optionValue(args, "--master-addr"), param_.nodes > 1 ? "$(MASTER_ADDR)" : "");
  // The manifest itself still trains with torchrun.
  const auto documents = YAML::LoadAll(manifest);
  const YAML::Node spec =
      param_.nodes > 1 ? documents[1]["spec"]["template"]["spec"] : documents[0]["spec"];
  EXPECT_EQ(spec["containers"][0]["args"][0].as<std::string>(), "torchrun");
}

// Regression: a Hugging Face id as the model gave a benchmark line that
// exits 2 (the engine builds only its presets). It is now a comment, every
// line of it, so the script runs the torchrun part.
TEST(LaunchScript, ModelThatIsNotAnEnginePresetGetsACommentedBenchmark) {
  ImageConfig config;
  config.tag = "25.09";
  config.model = "meta-llama/Llama-3.1-8B";
  const auto resolved = resolveConfig(config, catalog::builtinCatalog());
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  const std::string script = launchArtifact(*resolved).content;
  const auto commands = parseShellCommands(script);
  ASSERT_EQ(commands.size(), 2U);  // set -eu, torchrun
  EXPECT_EQ(commands[1][0], "torchrun");
  EXPECT_NE(script.find("# trainbench benchmark"), std::string::npos);
  EXPECT_NE(script.find("# trainbench run"), std::string::npos);
  EXPECT_NE(script.find("'meta-llama/Llama-3.1-8B' is not one"), std::string::npos);
}

// The same for the sbatch script: the engine's step is a comment, every line
// of it, so the job runs only the torchrun step.
TEST(SlurmScript, ModelThatIsNotAnEnginePresetLeavesTheTorchrunStepAlone) {
  ImageConfig config;
  config.tag = "25.09";
  config.nodes = 2;
  config.model = "meta-llama/Llama-3.1-8B";
  const auto resolved = resolveConfig(config, catalog::builtinCatalog());
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  const std::string script = slurmArtifact(*resolved).content;
  const auto steps = commandsOf(script, "srun");
  ASSERT_EQ(steps.size(), 1U);
  EXPECT_EQ(splitSrun(steps[0]).command.front(), "torchrun");
  EXPECT_NE(script.find("'meta-llama/Llama-3.1-8B' is not one"), std::string::npos);
  EXPECT_NE(script.find("exec trainbench run"), std::string::npos);  // in the comment
}

// The script run for real by bash, with stand-ins for Slurm's srun (which
// runs its command once per node with that task's SLURM_NODEID, as one task
// per node does) and scontrol, and for trainbench and torchrun (which write
// the argv they were given). Each node's launcher must get its own rank and
// node 0's host: expanded by the batch shell, every node would get the same.
TEST(SlurmScript, NodeRankAndMasterAddressAreExpandedPerTask) {
  namespace fs = std::filesystem;
  ImageConfig config;
  config.tag = "25.09";
  config.nodes = 2;
  config.checkpointOptimization = true;
  const auto resolved = resolveConfig(config, catalog::builtinCatalog());
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;

  const fs::path dir =
      fs::temp_directory_path() /
      ("tb-sbatch-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  fs::create_directories(dir / "bin");
  const auto write = [&dir](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    fs::permissions(dir / name, fs::perms::owner_all);
  };
  write("bin/srun",
        "#!/bin/sh\n"
        "while [ $# -gt 0 ] && [ \"${1#--}\" != \"$1\" ]; do shift; done\n"
        "node=0\n"
        "while [ $node -lt \"$SLURM_NNODES\" ]; do\n"
        "  SLURM_NODEID=$node \"$@\" || exit $?\n"
        "  node=$((node + 1))\n"
        "done\n");
  write("bin/scontrol",
        "#!/bin/sh\n"
        "[ \"$1 $2 $3\" = \"show hostnames gpu-[07-08]\" ] || exit 1\n"
        "printf 'gpu-07\\ngpu-08\\n'\n");
  for (const char* program : {"trainbench", "torchrun"}) {
    write(std::string("bin/") + program,
          "#!/bin/sh\n"
          "echo \"$(basename \"$0\") $* NCCL_SOCKET_IFNAME=$NCCL_SOCKET_IFNAME\" >> \"$TB_LOG\"\n");
  }
  write("trainbench.sbatch", slurmArtifact(*resolved).content);

  tb::ProcessOptions options;
  options.environment = {{"PATH", (dir / "bin").string() + ":/usr/bin:/bin"},
                         {"SLURM_NNODES", "2"},
                         {"SLURM_JOB_NODELIST", "gpu-[07-08]"},
                         {"TB_LOG", (dir / "log").string()}};
  options.unsetEnvironment = {"SLURM_NODEID", "NODE_RANK", "MASTER_ADDR"};
  const auto run = tb::runProcess({"/bin/bash", (dir / "trainbench.sbatch").string()}, options);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->exitCode, 0) << run->standardError;

  std::vector<std::string> calls;
  std::ifstream log(dir / "log");
  for (std::string line; std::getline(log, line);) calls.push_back(line);
  const std::string engine =
      "trainbench run --model llama3-8b --seq 4096 --batch 1 --device cuda --recompute auto "
      "--nproc-per-node 8 --nnodes 2 --node-rank ";
  const std::string engineRest = " --master-addr gpu-07 --master-port 29500";
  const std::string torchrun = "torchrun --nnodes=2 --node_rank=";
  const std::string torchrunRest =
      " --master_addr=gpu-07 --master_port=29500 --nproc_per_node=8 train.py --deepspeed "
      "ds_config.json";
  const std::string env = " NCCL_SOCKET_IFNAME=eth0";
  EXPECT_EQ(calls, (std::vector<std::string>{
                       engine + "0" + engineRest + env, engine + "1" + engineRest + env,
                       torchrun + "0" + torchrunRest + env, torchrun + "1" + torchrunRest + env}));
  fs::remove_all(dir);
}

std::string caseName(const ::testing::TestParamInfo<ArtifactMatrix::ParamType>& info) {
  const auto [gpus, nodes, compile, checkpointOpt] = info.param;
  return std::to_string(gpus) + "Gpus_" + std::to_string(nodes) + "Nodes_Compile" +
         (compile ? "On" : "Off") + "_CkptOpt" + (checkpointOpt ? "On" : "Off");
}

INSTANTIATE_TEST_SUITE_P(PodShapesAndOptimizations, ArtifactMatrix,
                         ::testing::Combine(::testing::Values(1, 8, 16), ::testing::Values(1, 3),
                                            ::testing::Bool(), ::testing::Bool()),
                         caseName);

}  // namespace
}  // namespace tb::config
