// `trainbench ablation plan`: the four configurations (Base on NGC's PyTorch
// image, AC2, +CompilerOpt, +CkptOpt) as jobs for a scheduler, built in
// memory first so that bad input writes nothing, then written into the plan
// folder with plan.json last (a folder without it is not a plan).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model_flags.hpp"
#include "tb/bench/cluster_plan.hpp"
#include "tb/catalog/catalog.hpp"
#include "tb/common/expected.hpp"
#include "tb/config/cluster_job.hpp"

namespace tb::cli {

/// What the user asked for, parsed.
struct AblationPlanRequest {
  std::string image;  ///< --image: a tag or a reference
  bench::Scheduler scheduler = bench::Scheduler::Slurm;
  std::filesystem::path out;
  int nodes = 1;
  int gpus = 8;  ///< per node: GPUs, or worker processes on CPUs
  int repeats = 3;
  int timeLimitMinutes = 0;
  std::string baseImage;  ///< --base-image; empty: the catalog's pairing
  std::optional<config::ContainerRuntime> container;  ///< unset: the scheduler's default
  // The engine workload: what `trainbench run` gets in every job.
  ModelFlags modelFlags;
  std::optional<std::int64_t> steps;
  std::optional<std::uint64_t> memoryBudget;
  std::string device = "cuda";
  std::vector<std::string> command;  ///< after --: the user's own training command
  /// For a command: +CkptOpt's recompute policy (as `trainbench plan` gives
  /// it) and the memory profile naming the command's framework, which spells it.
  std::string ckptRecompute;
  std::string profile;
};

/// One file of the plan folder.
struct PlanFile {
  std::string path;  ///< relative to the plan folder
  std::string content;
  bool executable = false;
};

/// A plan and every file it writes, plan.json last.
struct BuiltPlan {
  bench::ClusterPlan plan;
  std::vector<PlanFile> files;
};

/// Checks the request against the catalog and builds the plan; nothing is
/// written. Bad input names the option and its value.
[[nodiscard]] Expected<BuiltPlan> buildAblationPlan(const AblationPlanRequest& request,
                                                    const catalog::Catalog& catalog);

/// Writes the plan into `out` (created; refused when it already holds a
/// plan): the log folders, the job files, submit.sh, then plan.json.
[[nodiscard]] Status writeAblationPlan(const std::filesystem::path& out, const BuiltPlan& built);

/// submit.sh for the plan: every job in order, each once the one before it
/// ended, its id appended to submitted.tsv as it is given.
[[nodiscard]] std::string submitScript(const bench::ClusterPlan& plan);

}  // namespace tb::cli
