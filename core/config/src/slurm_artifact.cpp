// The sbatch script: the launch contract of launch.sh under Slurm. One task
// per node runs one launcher (trainbench's or torchrun's), which starts the
// node's per-GPU workers itself; Slurm supplies what a Kubernetes indexed Job
// supplies through its completion index and Service: the node's rank
// (SLURM_NODEID) and node 0's address (the first host of the allocation).
//
// The steps run in the image, as docker-run.sh runs it on bare metal: through
// pyxis/enroot's `srun --container-image`, which is how NVIDIA clusters run
// NGC images under Slurm. Every word goes through shellQuote.
#include <sstream>

#include "shell_script.hpp"
#include "tb/common/text.hpp"
#include "tb/config/artifacts.hpp"
#include "tb/config/cluster_job.hpp"

namespace tb::config {
namespace {

using detail::engineCommand;
using detail::headerComment;
using detail::joinCommand;

// enroot reads "[USER@][REGISTRY#]IMAGE[:TAG]": a plain "host/ns/image:tag"
// would be looked up on Docker Hub under that whole name, so the registry
// host is separated by '#'. A reference without a host is Docker Hub's.
std::string enrootImage(const std::string& reference) {
  const std::size_t slash = reference.find('/');
  if (slash == std::string::npos) return reference;
  const std::string host = reference.substr(0, slash);
  const bool isHost = host.find_first_of(".:") != std::string::npos || host == "localhost";
  return isHost ? host + "#" + reference.substr(slash + 1) : reference;
}

// The variables a step's tasks get from the batch script's environment.
std::vector<std::string> exportedNames(const ResolvedConfig& resolved,
                                       const std::vector<EnvVar>& extra) {
  std::vector<std::string> names;
  for (const EnvVar& var : imageEnvironment(resolved)) names.push_back(var.name);
  for (const EnvVar& var : extra) names.push_back(var.name);
  if (resolved.config.nodes > 1) names.emplace_back("MASTER_ADDR");
  return names;
}

// What the step runs in: pyxis's options of srun, or nothing here (Apptainer
// wraps the command instead, and bare metal needs neither).
std::vector<std::string> pyxisOptions(const std::string& image,
                                      const std::vector<std::string>& names) {
  std::vector<std::string> options = {
      "--container-image=" + enrootImage(image),
      // pyxis skips the image's entrypoint unless asked (its default
      // execute_entrypoint=0), and the entrypoint is what enables CUDA forward
      // compatibility (the manifest keeps it by setting args:, never command:).
      "--container-entrypoint",
      // The submit directory, where sbatch starts the script (on a shared
      // file system), as docker-run.sh mounts its ${PWD}.
      "--container-mounts=${PWD}:/workspace",
      "--container-workdir=/workspace",
  };
  // pyxis sets exported variables after the entrypoint and lets the image's
  // own values win; the ones named here are set before it and win (0.15+).
  if (!names.empty()) options.push_back("--container-env=" + joinList(names, ","));
  return options;
}

// How one step runs: srun's options, and what wraps the command.
struct StepShape {
  std::vector<std::string> srun;
  std::vector<std::string> wrapper;  ///< words before the command in each task
};

StepShape stepShape(const ResolvedConfig& resolved, const std::string& image,
                    ContainerRuntime container, const std::vector<EnvVar>& extra) {
  StepShape shape;
  shape.srun = {
      "srun",
      // One launcher per node even when sbatch was given other task counts.
      "--ntasks-per-node=1",
      // A launcher that fails ends the step on every node at once, instead of
      // leaving the others waiting on the rendezvous until their deadline.
      "--kill-on-bad-exit=1",
  };
  if (container == ContainerRuntime::Pyxis) {
    const std::vector<std::string> pyxis = pyxisOptions(image, exportedNames(resolved, extra));
    shape.srun.insert(shape.srun.end(), pyxis.begin(), pyxis.end());
  } else if (container == ContainerRuntime::Apptainer) {
    // --nv binds the host's driver; Apptainer passes the environment and the
    // working directory on by default.
    shape.wrapper = {"apptainer", "exec", "--nv", "docker://" + image};
  }
  return shape;
}

// One srun step. With several nodes the command runs under `bash -c` in each
// task, NODE_RANK taken from that task's SLURM_NODEID. The single quotes
// around it are what make the expansion per task: this batch script's shell
// runs once, on node 0, where SLURM_NODEID is 0 and NODE_RANK unset, so
// expanded here every node would get the same rank (or `set -u` would end
// the job). srun passes the words on unexpanded and each task's bash expands
// them in its own environment. One node needs no rank: its command is srun's
// own argv.
std::string srunStep(const ResolvedConfig& resolved, const StepShape& shape,
                     const std::vector<std::string>& command,
                     const std::vector<std::string>& breakBefore) {
  std::vector<std::string> words = shape.srun;
  words.insert(words.end(), shape.wrapper.begin(), shape.wrapper.end());
  const std::string& first = shape.wrapper.empty() ? command.front() : shape.wrapper.front();
  if (resolved.config.nodes == 1) {
    words.insert(words.end(), command.begin(), command.end());
    std::vector<std::string> breaks = breakBefore;
    breaks.push_back(first);
    if (!shape.wrapper.empty()) breaks.push_back(command.front());
    return joinCommand(words, breaks);
  }
  const std::string perTask =
      "export NODE_RANK=\"${SLURM_NODEID}\"; exec " + joinCommand(command, breakBefore);
  words.emplace_back("bash");
  return joinCommand(words, {first, "bash"}) + " -c " + shellQuote(perTask);
}

// The #SBATCH lines of a job of whole nodes, one task per node.
void writeDirectives(std::ostringstream& text, const ResolvedConfig& resolved, bool requestGpus) {
  const auto directive = [&text](const std::string& option) {
    text << "#SBATCH " << shellQuote(option) << '\n';
  };
  directive("--nodes=" + std::to_string(resolved.config.nodes));
  directive("--ntasks-per-node=1");
  if (requestGpus) directive("--gpus-per-node=" + std::to_string(resolved.config.gpusPerPod));
  directive("--exclusive");
}

// The exports every step's tasks inherit, and node 0's address.
void writeEnvironment(std::ostringstream& text, const ResolvedConfig& resolved,
                      const std::vector<EnvVar>& extra) {
  text << "# The variables every artifact sets; srun passes them to each task.\n";
  for (const EnvVar& var : imageEnvironment(resolved)) {
    text << joinCommand({"export", var.name + "=" + var.value}) << '\n';
  }
  for (const EnvVar& var : extra) {
    text << joinCommand({"export", var.name + "=" + var.value}) << '\n';
  }
  if (resolved.config.nodes > 1) {
    // This script runs on the allocation's first node, which Slurm numbers 0
    // (SLURM_NODEID) and which therefore hosts the rendezvous store.
    text << "# Node 0, the first host of the allocation, hosts the rendezvous.\n"
         << "MASTER_ADDR=$("
         << joinCommand({"scontrol", "show", "hostnames", "${SLURM_JOB_NODELIST}"})
         << " | head -n 1)\n"
         << "export MASTER_ADDR\n";
  }
  text << "\n";
}

}  // namespace

Artifact slurmArtifact(const ResolvedConfig& resolved) {
  std::ostringstream text;
  text << "#!/bin/bash\n" << headerComment(resolved);
  // sbatch reads #SBATCH lines only before the first command, so they come
  // first.
  text << "# One task per node: its launcher (trainbench's or torchrun's) starts the node's\n"
       << "# per-GPU workers itself. Whole nodes: every GPU, NIC and core goes to the job.\n"
       << "#SBATCH " << shellQuote("--job-name=" + resolved.objectName) << '\n';
  writeDirectives(text, resolved, true);
  text << "set -eu\n\n";
  writeEnvironment(text, resolved, {});

  // Two steps, in launch.sh's order, rather than the engine as a commented
  // alternative: its run is short (20 steps unless --steps says otherwise)
  // over the same ranks, address and network as train.py, so an allocation
  // that cannot carry a data-parallel job fails within --dist-timeout, naming
  // the operation, before the long training starts (`set -e` ends the job
  // there). A model the engine cannot build leaves step 2 alone in the job.
  const StepShape shape = stepShape(resolved, resolved.imageReference, ContainerRuntime::Pyxis, {});
  text << "# 1. The embedded engine, data-parallel over each node's GPUs (one launcher per\n"
       << "#    node): a short check of the allocation before step 2; trainbench must be on the\n"
       << "#    image's PATH (a derived image, or a mount). Delete this step to train only with\n"
       << "#    train.py.\n";
  const std::vector<std::string> engine = trainbenchRunArguments(resolved, VariableStyle::Shell);
  text << engineCommand(resolved, srunStep(resolved, shape, engine, {}), "#    ") << "\n";
  text << "# 2. Training: one torchrun per node, inside the image.\n";
  text << srunStep(resolved, shape, torchrunArguments(resolved, VariableStyle::Shell), {"train.py"})
       << "\n";
  return {ArtifactKind::Slurm, "trainbench.sbatch", text.str()};
}

Artifact slurmJobArtifact(const ClusterJob& job, std::string fileName) {
  const ResolvedConfig& resolved = job.resolved;
  std::ostringstream text;
  text << "#!/bin/bash\n"
       << "# " << job.name << ": training-nv-pytorch " << resolved.release.tag << " plan, "
       << resolved.config.nodes << " node(s); generated by trainbench ablation plan\n";
  const auto directive = [&text](const std::string& option) {
    text << "#SBATCH " << shellQuote(option) << '\n';
  };
  directive("--job-name=" + job.name);
  writeDirectives(text, resolved, job.requestGpus);
  // The batch script's own output (srun's errors, the scheduler's notes);
  // each node's launcher writes its own log below. Slurm does not create
  // folders: the plan made this one.
  directive("--output=" + job.logDir + "/job.out");
  if (job.timeLimitMinutes > 0) directive("--time=" + std::to_string(job.timeLimitMinutes));
  text << "set -eu\n\n";
  writeEnvironment(text, resolved, job.environment);
  StepShape shape = stepShape(resolved, job.imageReference, job.container, job.environment);
  // %n is the node's index in the job: node-0.log is node 0's launcher.
  shape.srun.push_back("--output=" + job.logDir + "/node-%n.log");
  text << srunStep(resolved, shape, job.command, {}) << "\n";
  return {ArtifactKind::Slurm, std::move(fileName), text.str()};
}

}  // namespace tb::config
