// The subcommands of `trainbench ablation`, each in its own file: plan
// writes the jobs, status says how they stand, collect turns the completed
// ones into results and a report.
#pragma once

#include <filesystem>

#include "command.hpp"
#include "tb/bench/cluster_collect.hpp"

namespace tb::cli {

/// A subcommand and the action to run when it was the one parsed.
struct AblationSubcommand {
  CLI::App* command = nullptr;
  CommandAction action;
};

[[nodiscard]] AblationSubcommand addAblationPlan(CLI::App& parent);
[[nodiscard]] AblationSubcommand addAblationStatus(CLI::App& parent);
[[nodiscard]] AblationSubcommand addAblationCollect(CLI::App& parent);

/// Reads a plan folder named on the command line; a folder without
/// plan.json is bad input that says how to write one.
[[nodiscard]] Expected<bench::CollectedPlan> readPlanArgument(
    const std::filesystem::path& dir, const bench::CollectOptions& options = {});

}  // namespace tb::cli
