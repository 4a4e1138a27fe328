// What several artifacts share: the kind names, the environment the image
// reads, the torchrun and `trainbench run` argvs and shell quoting. Keeping
// them in one place is what makes the env file, `docker run`, the manifest,
// the launch script and the sbatch script agree on every value.
#include <algorithm>
#include <array>
#include <stdexcept>

#include "tb/common/name_table.hpp"
#include "tb/common/text.hpp"
#include "tb/config/artifacts.hpp"
#include "tb/config/cluster_job.hpp"

namespace tb::config {
namespace {

constexpr int kMasterPort = 29500;

constexpr std::array<EnumName<ArtifactKind>, 7> kKindNames = {{
    {ArtifactKind::Env, "env"},
    {ArtifactKind::Docker, "docker"},
    {ArtifactKind::Kubernetes, "k8s"},
    {ArtifactKind::DeepSpeed, "deepspeed"},
    {ArtifactKind::TrainingArgs, "training-args"},
    {ArtifactKind::Launch, "launch"},
    {ArtifactKind::Slurm, "slurm"},
}};

// How a multi-node command names a value each node supplies itself.
std::string variable(VariableStyle style, std::string_view name) {
  return style == VariableStyle::Kubernetes ? "$(" + std::string(name) + ")"
                                            : "${" + std::string(name) + "}";
}

}  // namespace

const std::vector<ArtifactKind>& allArtifactKinds() {
  static const std::vector<ArtifactKind> kinds = [] {
    std::vector<ArtifactKind> all;
    for (const auto& entry : kKindNames) all.push_back(entry.value);
    return all;
  }();
  return kinds;
}

std::string_view toString(ArtifactKind kind) noexcept {
  return nameOf(kKindNames, kind, "unknown");
}

Expected<ArtifactKind> parseArtifactKind(std::string_view text) {
  if (auto kind = valueNamed(kKindNames, text)) return *kind;
  return makeError(ErrorKind::BadInput, "format: unknown artifact '" + std::string(text) +
                                            "'; known: " + joinList(namesOf(kKindNames)) + ", all");
}

std::vector<EnvVar> imageEnvironment(const ResolvedConfig& resolved) {
  std::vector<EnvVar> env;
  env.push_back({"NCCL_SOCKET_IFNAME", resolved.socketInterface});
  // The image reads exactly "true"; leaving the variable out keeps it off.
  if (resolved.config.checkpointOptimization) env.push_back({"CHECKPOINT_OPTIMIZATION", "true"});
  return env;
}

std::vector<std::string> torchrunLauncherArguments(const ResolvedConfig& resolved,
                                                   VariableStyle style) {
  const ImageConfig& config = resolved.config;
  std::vector<std::string> args = {"torchrun"};
  if (config.nodes > 1) {
    args.push_back("--nnodes=" + std::to_string(config.nodes));
    args.push_back("--node_rank=" + variable(style, "NODE_RANK"));
    args.push_back("--master_addr=" + variable(style, "MASTER_ADDR"));
    args.push_back("--master_port=" + std::to_string(kMasterPort));
  }
  args.push_back("--nproc_per_node=" + std::to_string(config.gpusPerPod));
  return args;
}

std::vector<std::string> torchrunArguments(const ResolvedConfig& resolved, VariableStyle style) {
  std::vector<std::string> args = torchrunLauncherArguments(resolved, style);
  args.insert(args.end(), {"train.py", "--deepspeed", "ds_config.json"});
  return args;
}

std::vector<std::string> trainbenchLauncherArguments(const ResolvedConfig& resolved,
                                                     VariableStyle style) {
  const ImageConfig& config = resolved.config;
  // Our launcher, like torchrun's agent: one per node, starting this node's
  // workers, node 0 hosting the rendezvous store at the port torchrun uses.
  std::vector<std::string> args = {"--nproc-per-node", std::to_string(config.gpusPerPod)};
  if (config.nodes > 1) {
    args.insert(args.end(),
                {"--nnodes", std::to_string(config.nodes), "--node-rank",
                 variable(style, "NODE_RANK"), "--master-addr", variable(style, "MASTER_ADDR"),
                 "--master-port", std::to_string(kMasterPort)});
  }
  return args;
}

std::vector<std::string> trainbenchRunArguments(const ResolvedConfig& resolved,
                                                VariableStyle style) {
  const ImageConfig& config = resolved.config;
  // The flags are those of `trainbench run` (docs/CLI.md); the CLI's
  // integration test looks each option name up in `trainbench run --help`.
  std::vector<std::string> args = {"trainbench", "run",
                                   "--model",    config.model,
                                   "--seq",      std::to_string(config.seqLength),
                                   "--batch",    std::to_string(config.microBatch),
                                   "--device",   "cuda"};
  // CHECKPOINT_OPTIMIZATION=true, which every artifact exports with the
  // option on, already means auto to the engine; the flag says so on the
  // line itself, where a reader compares it with the torchrun command.
  if (config.checkpointOptimization) args.insert(args.end(), {"--recompute", "auto"});
  const std::vector<std::string> launcher = trainbenchLauncherArguments(resolved, style);
  args.insert(args.end(), launcher.begin(), launcher.end());
  return args;
}

std::string shellQuote(std::string_view word) {
  if (word.empty()) return "''";
  const bool plain = std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("-_./=:,+@%").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(word);
  // "${NODE_RANK}" must expand, so a word holding only variable references
  // and safe characters is double-quoted; anything else is single-quoted.
  const bool expandable = word.find_first_of("\"\\`") == std::string_view::npos &&
                          word.find("${") != std::string_view::npos;
  if (expandable) return "\"" + std::string(word) + "\"";
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

Artifact generateArtifact(const ResolvedConfig& resolved, ArtifactKind kind) {
  switch (kind) {
    case ArtifactKind::Env: return envFileArtifact(resolved);
    case ArtifactKind::Docker: return dockerRunArtifact(resolved);
    case ArtifactKind::Kubernetes: return kubernetesArtifact(resolved);
    case ArtifactKind::DeepSpeed: return deepSpeedArtifact(resolved);
    case ArtifactKind::TrainingArgs: return trainingArgsArtifact(resolved);
    case ArtifactKind::Launch: return launchArtifact(resolved);
    case ArtifactKind::Slurm: return slurmArtifact(resolved);
  }
  throw std::logic_error("generateArtifact: unhandled artifact kind");
}

std::vector<Artifact> generateArtifacts(const ResolvedConfig& resolved) {
  std::vector<Artifact> artifacts;
  for (ArtifactKind kind : allArtifactKinds()) {
    artifacts.push_back(generateArtifact(resolved, kind));
  }
  return artifacts;
}

}  // namespace tb::config
