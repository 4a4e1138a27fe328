// One job of a cluster plan, written for the scheduler that runs it: an
// sbatch script, a Kubernetes indexed Job with its headless Service, or a
// shell script of torchrun launch lines. They are `trainbench config`'s
// artifacts with two things changed: the image can be another one (the Base
// of an ablation runs on NGC's PyTorch image) and the command is the job's
// workload, one launcher per node, writing node 0's output to a known file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/config/artifacts.hpp"
#include "tb/config/image_config.hpp"

namespace tb::config {

/// How a Slurm or torchrun job runs the image on each node: pyxis/enroot
/// (`srun --container-image`), Apptainer (`apptainer exec docker://…`), or
/// the site's own environment (bare metal, and the tests).
enum class ContainerRuntime { Pyxis, Apptainer, None };

/// "pyxis", "apptainer", "none".
[[nodiscard]] std::string_view toString(ContainerRuntime runtime) noexcept;
/// The inverse of toString; BadInput names the text and the known names.
[[nodiscard]] Expected<ContainerRuntime> parseContainerRuntime(std::string_view text);

/// Everything a scheduler's job file needs beyond the configuration.
struct ClusterJob {
  ResolvedConfig resolved;          ///< shape, switches and the image's environment
  std::string imageReference;       ///< what runs: the release's image, or Base's
  std::vector<EnvVar> environment;  ///< exported after imageEnvironment(resolved)
  /// One launcher per node. Written for the scheduler's VariableStyle, it may
  /// name NODE_RANK and MASTER_ADDR, which every job file sets per node.
  std::vector<std::string> command;
  std::string name;    ///< the scheduler's job name, a DNS-1123 label
  std::string logDir;  ///< where node N writes node-N.log, relative to the plan folder
  ContainerRuntime container = ContainerRuntime::Pyxis;
  bool requestGpus = true;   ///< false for a run on CPUs (a local try, the tests)
  int timeLimitMinutes = 0;  ///< 0: the partition's or the cluster's default
};

/// The file node N's launcher writes: "<logDir>/node-N.log".
[[nodiscard]] std::string nodeLogPath(const ClusterJob& job, int node);

/// An sbatch script with one srun step: one task per node runs the command,
/// each node's output in its own log (srun's %n).
[[nodiscard]] Artifact slurmJobArtifact(const ClusterJob& job, std::string fileName);

/// A headless Service and an indexed Job of `nodes` pods (one pod too, so the
/// Job's Complete or Failed condition tells how it ended).
[[nodiscard]] Artifact kubernetesJobArtifact(const ClusterJob& job, std::string fileName);

/// A shell script that runs this node's launcher (NODE_RANK and MASTER_ADDR
/// from its environment, node 0 and this host by default) with its output in
/// this node's log; run it on every node.
[[nodiscard]] Artifact torchrunJobArtifact(const ClusterJob& job, std::string fileName);

/// The launcher options of `trainbench run` for this shape (--nproc-per-node,
/// and for several nodes --nnodes, --node-rank, --master-addr, --master-port):
/// the part of trainbenchRunArguments that starts the workers.
[[nodiscard]] std::vector<std::string> trainbenchLauncherArguments(const ResolvedConfig& resolved,
                                                                   VariableStyle style);

/// torchrun's own options for this shape, before the program it starts.
[[nodiscard]] std::vector<std::string> torchrunLauncherArguments(const ResolvedConfig& resolved,
                                                                 VariableStyle style);

}  // namespace tb::config
