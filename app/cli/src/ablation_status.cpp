// `trainbench ablation status DIR`: every job of a plan as its files show it
// and as the scheduler reports it, while the jobs run and after.
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>
#include <system_error>

#include "ablation_jobs.hpp"
#include "ablation_subcommands.hpp"
#include "exit_codes.hpp"
#include "output.hpp"

namespace tb::cli {
namespace {

struct StatusOptions {
  std::string dir;
  bool json = false;
};

int runStatus(const CommandContext& context, const StatusOptions& options) {
  Expected<bench::CollectedPlan> collected = readPlanArgument(options.dir);
  if (!collected) return context.fail(collected.error());
  const std::vector<std::string> scheduler = schedulerStates(*collected);
  const bench::ClusterPlan& plan = collected->plan;
  if (options.json) {
    printJson(context.out(), Json{{"folder", options.dir},
                                  {"release", plan.release},
                                  {"scheduler", bench::toString(plan.scheduler)},
                                  {"completed", collected->results.completedRuns},
                                  {"planned", collected->results.plannedRuns},
                                  {"jobs", jobsJson(*collected, scheduler)}});
    return kExitSuccess;
  }
  context.out() << "The ablation of " << plan.release << " on " << bench::toString(plan.scheduler)
                << ": " << jobCounts(*collected) << '\n';
  printJobTable(context.out(), *collected, scheduler);
  return kExitSuccess;
}

}  // namespace

Expected<bench::CollectedPlan> readPlanArgument(const std::filesystem::path& dir,
                                                const bench::CollectOptions& options) {
  std::error_code error;
  if (!std::filesystem::exists(dir / bench::kClusterPlanFile, error)) {
    return makeError(ErrorKind::BadInput, "DIR: '" + dir.string() + "' holds no plan (" +
                                              std::string(bench::kClusterPlanFile) +
                                              "); trainbench ablation plan --out DIR writes one");
  }
  return bench::readPlanFolder(dir, options);
}

AblationSubcommand addAblationStatus(CLI::App& parent) {
  auto options = std::make_shared<StatusOptions>();
  CLI::App* command = parent.add_subcommand(
      "status", "How every job of a plan stands: by its files, and by the scheduler");
  command->add_option("DIR", options->dir, "The plan folder")->required()->type_name("DIR");
  command->add_flag("--json", options->json, "Print one JSON document (fields: docs/CLI.md)");
  command->footer(
      "Exit codes: 0 the plan was read; 2 DIR holds no plan, or plan.json is "
      "malformed.\nThe scheduler is asked with scontrol or sacct (Slurm), kubectl "
      "(Kubernetes) or the launcher's pid (torchrun).");
  return {command,
          [options](const CommandContext& context) { return runStatus(context, *options); }};
}

}  // namespace tb::cli
