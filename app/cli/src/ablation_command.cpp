// `trainbench ablation plan`: the ablation as jobs on the user's own cluster
// (docs/CLUSTER.md). The plan folder holds plan.json, one job file per
// configuration and repeat, the log folders and submit.sh.
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>
#include <vector>

#include "ablation_plan.hpp"
#include "ablation_subcommands.hpp"
#include "command.hpp"
#include "exit_codes.hpp"
#include "output.hpp"

namespace tb::cli {
namespace {

struct AblationPlanOptions {
  AblationPlanRequest request;
  std::string scheduler;
  std::string container;
  std::string out;
  bool json = false;
};

Expected<AblationPlanRequest> requestOf(const AblationPlanOptions& options) {
  AblationPlanRequest request = options.request;
  Expected<bench::Scheduler> scheduler = bench::parseScheduler(options.scheduler);
  if (!scheduler) return makeError(ErrorKind::BadInput, "--" + scheduler.error().message);
  request.scheduler = *scheduler;
  if (!options.container.empty()) {
    Expected<config::ContainerRuntime> container = config::parseContainerRuntime(options.container);
    if (!container) return makeError(ErrorKind::BadInput, "--" + container.error().message);
    request.container = *container;
  }
  request.out = options.out;
  return request;
}

void printPlanText(std::ostream& out, const std::filesystem::path& dir,
                   const bench::ClusterPlan& plan) {
  out << "Planned the ablation of " << plan.release << " on " << bench::toString(plan.scheduler)
      << ": " << plan.jobs.size() << " jobs (" << plan.repeats
      << (plan.repeats == 1 ? " repeat" : " repeats") << " of 4 configurations, interleaved), "
      << plan.nodes << " node(s) x " << plan.gpusPerNode
      << (plan.workload.device == "cpu" && plan.workload.engine ? " worker(s)\n" : " GPU(s)\n");
  for (const bench::PlanConfiguration& configuration : plan.configurations) {
    out << "  " << bench::label(configuration.step) << ": " << configuration.image << ", recompute "
        << configuration.recompute << '\n';
  }
  out << "Plan: " << (dir / bench::kClusterPlanFile).string() << '\n'
      << "Submit: " << (dir / plan.submitScript).string() << '\n';
}

int runPlan(const CommandContext& context, const AblationPlanOptions& options) {
  Expected<AblationPlanRequest> request = requestOf(options);
  if (!request) return context.fail(request.error());
  Expected<catalog::Catalog> catalog = context.loadCatalog();
  if (!catalog) return context.fail(catalog.error());
  Expected<BuiltPlan> built = buildAblationPlan(*request, *catalog);
  if (!built) return context.fail(built.error());
  if (Status written = writeAblationPlan(request->out, *built); !written) {
    return context.fail(written.error());
  }
  if (options.json) {
    Json document = Json::parse(bench::clusterPlanToJson(built->plan));
    document["folder"] = request->out.string();
    printJson(context.out(), document);
  } else {
    printPlanText(context.out(), request->out, built->plan);
  }
  return kExitSuccess;
}

CLI::App* addPlanCommand(CLI::App& parent, AblationPlanOptions& options) {
  AblationPlanRequest& request = options.request;
  CLI::App* command = parent.add_subcommand(
      "plan",
      "Write the four configurations (Base on NGC's PyTorch image, AC2, +CompilerOpt, "
      "+CkptOpt) as jobs for Slurm, Kubernetes or torchrun, with submit.sh");
  command->add_option("--image", request.image, "Release: a tag (25.04) or an image reference")
      ->required()
      ->type_name("TAG");
  command->add_option("--scheduler", options.scheduler, "slurm, k8s or torchrun")
      ->required()
      ->type_name("NAME");
  command->add_option("--out", options.out, "The plan folder (new, or one without a plan)")
      ->required()
      ->type_name("DIR");
  command->add_option("--nodes", request.nodes, "Nodes per job (default 1)")->type_name("N");
  command
      ->add_option("--gpus", request.gpus,
                   "GPUs per node (default 8): 1, 2, 4, 8 or 16; worker processes with "
                   "--device cpu")
      ->type_name("N");
  command->add_option("--repeats", request.repeats, "Jobs per configuration (default 3)")
      ->type_name("N");
  command
      ->add_option("--base-image", request.baseImage,
                   "The image Base runs on (default: the NGC PyTorch image the catalog "
                   "pairs with the release)")
      ->type_name("REF");
  command
      ->add_option("--container", options.container,
                   "How Slurm or torchrun jobs run the image: pyxis (Slurm's default), "
                   "apptainer, or none (the site's environment; torchrun's default)")
      ->type_name("NAME");
  command
      ->add_option("--time-limit", request.timeLimitMinutes,
                   "Minutes each job may run (Slurm --time, Kubernetes "
                   "activeDeadlineSeconds); 0: the cluster's default")
      ->type_name("MIN");
  addModelFlags(*command, request.modelFlags);
  command->add_option("--steps", request.steps, "The engine's steps per job (run's default 20)")
      ->type_name("N");
  command->add_option("--device", request.device, "The engine's device: cuda (default) or cpu")
      ->type_name("DEV");
  command
      ->add_option("--memory-budget", request.memoryBudget,
                   "The engine's budget for --recompute auto in +CkptOpt")
      ->type_name("BYTES");
  command
      ->add_option("--ckpt-recompute", request.ckptRecompute,
                   "With a command after --: +CkptOpt's recompute policy, as trainbench "
                   "plan proposes it (its job gets TB_RECOMPUTE and TB_RECOMPUTE_SPELLING)")
      ->type_name("POLICY");
  command
      ->add_option("--profile", request.profile,
                   "With --ckpt-recompute: the command's framework as trainbench plan "
                   "names it (megatron, deepspeed, fsdp, torchtitan), which spells the policy")
      ->type_name("NAME");
  command->add_flag("--json", options.json, "Print plan.json (and the folder) on stdout");
  command->add_option("COMMAND", request.command,
                      "After --: each node's own training command instead of the engine "
                      "(it reads TB_ABLATION_LABEL, TB_COMPILER_OPTIMIZATION, "
                      "TB_CHECKPOINT_OPTIMIZATION)");
  takeLastOfRepeatedValues(*command);
  command->footer(
      "Exit codes: 0 the plan was written; 1 it could not be written; 2 bad input "
      "(nothing written).\nThe plan folder: docs/CLUSTER.md.");
  return command;
}

}  // namespace

AblationSubcommand addAblationPlan(CLI::App& parent) {
  auto options = std::make_shared<AblationPlanOptions>();
  CLI::App* command = addPlanCommand(parent, *options);
  return {command, [options](const CommandContext& context) { return runPlan(context, *options); }};
}

RegisteredCommand registerAblationCommand(CLI::App& app) {
  CLI::App* command =
      app.add_subcommand("ablation",
                         "The ablation on your own cluster: plan its jobs for a scheduler, follow "
                         "them, collect their results");
  command->require_subcommand(1);
  const std::vector<AblationSubcommand> subcommands = {
      addAblationPlan(*command), addAblationStatus(*command), addAblationCollect(*command)};
  return {command, [subcommands](const CommandContext& context) {
            for (const AblationSubcommand& subcommand : subcommands) {
              if (subcommand.command->parsed()) return subcommand.action(context);
            }
            return context.fail(makeError(ErrorKind::BadInput, "ablation: name a subcommand"));
          }};
}

}  // namespace tb::cli
