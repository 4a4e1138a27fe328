// The ablation planned as jobs on a cluster: which configuration each job
// runs, in which image and with which switches, in which order it is
// submitted, and where its logs will be. `trainbench ablation plan` writes it
// as plan.json beside the job files; status and collect read it back, so a
// log is imported under the label the plan gave it, never one guessed from a
// file name. Schema: resources/bench/cluster-plan.schema.json.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tb/bench/ablation.hpp"
#include "tb/common/expected.hpp"

namespace tb::bench {

/// Version of the plan.json layout this build reads and writes.
inline constexpr int kClusterPlanVersion = 1;

/// The plan's manifest, in the plan folder.
inline constexpr std::string_view kClusterPlanFile = "plan.json";

/// Who runs the jobs.
enum class Scheduler { Slurm, Kubernetes, Torchrun };

/// "slurm", "k8s", "torchrun".
[[nodiscard]] std::string_view toString(Scheduler scheduler) noexcept;
/// The inverse of toString; BadInput names the text and the known names.
[[nodiscard]] Expected<Scheduler> parseScheduler(std::string_view text);

/// One variable a configuration's jobs export.
struct PlanVariable {
  std::string name;
  std::string value;
};

/// One of the four configurations, as every job of it runs.
struct PlanConfiguration {
  AblationStep step = AblationStep::Base;
  std::string image;  ///< the reference pulled: NGC's PyTorch for Base, the release for the rest
  std::vector<PlanVariable> environment;
  bool compilerOptimization = false;
  bool checkpointOptimization = false;
  std::string recompute;              ///< the policy as the workload spells it
  std::vector<std::string> runFlags;  ///< what this configuration adds to the command
};

/// One job: a configuration's repeat, in submission order.
struct PlanJob {
  int order = 0;  ///< 0-based position in the submission order
  AblationStep step = AblationStep::Base;
  int repeat = 1;       ///< 1-based
  std::string name;     ///< the scheduler's job name
  std::string jobFile;  ///< relative to the plan folder
  std::string logDir;   ///< relative to the plan folder; node N writes node-N.log there
  std::string log;      ///< node 0's log, the one collect imports
  std::string runDir;   ///< the engine's run directory; empty for a user's command
};

/// What every job trains.
struct PlanWorkload {
  bool engine = true;                ///< the embedded engine, else the user's command
  std::string model;                 ///< the engine's preset
  std::string device = "cuda";       ///< the engine's device
  std::vector<std::string> command;  ///< each node's command, before a configuration's flags
};

/// A whole plan.
struct ClusterPlan {
  int version = kClusterPlanVersion;
  std::string appVersion;
  std::string createdAt;  ///< ISO 8601, UTC
  std::string release;    ///< the catalog tag
  Scheduler scheduler = Scheduler::Slurm;
  std::string container;  ///< "pyxis", "apptainer", "none", or "image" (Kubernetes)
  int nodes = 1;
  int gpusPerNode = 8;
  int repeats = 3;
  PlanWorkload workload;
  std::vector<PlanConfiguration> configurations;  ///< in chain order
  std::vector<PlanJob> jobs;                      ///< in submission order
  std::string submitScript = "submit.sh";

  /// The configuration a job runs.
  [[nodiscard]] const PlanConfiguration& configurationOf(const PlanJob& job) const;
};

/// The jobs of `repeats` repeats, interleaved (Base AC2 CO CK, Base AC2 CO
/// CK, …) so that drift of the cluster falls on every configuration alike,
/// with their names, job files and log folders; `jobExtension` is the job
/// file's (".sbatch", ".yaml", ".sh"), `runDirs` whether the engine writes a
/// run directory.
[[nodiscard]] std::vector<PlanJob> planJobs(int repeats, std::string_view jobExtension,
                                            bool runDirs);

/// plan.json's text, two-space indented and ending with a newline.
[[nodiscard]] std::string clusterPlanToJson(const ClusterPlan& plan);

/// Reads plan.json's text, checked against its schema first; Parse errors
/// name `origin` and the JSON path.
[[nodiscard]] Expected<ClusterPlan> parseClusterPlan(std::string_view text,
                                                     std::string_view origin);

/// Reads DIR/plan.json.
[[nodiscard]] Expected<ClusterPlan> loadClusterPlan(const std::filesystem::path& dir);

}  // namespace tb::bench
