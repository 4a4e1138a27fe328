// The jobs of a plan folder as `ablation status` and `ablation collect`
// print them: one row per job for people, one array for programs, and what
// the scheduler says of each submitted job beside what its files say.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "output.hpp"
#include "tb/bench/cluster_collect.hpp"

namespace tb::cli {

/// What the scheduler says of one job: Slurm's job state (RUNNING,
/// COMPLETED, CANCELLED…), the Kubernetes Job's condition (Complete, Failed,
/// or active), torchrun's launcher (running, exited N); empty when the job
/// was not submitted; "unknown: why" when the scheduler could not be asked.
[[nodiscard]] std::vector<std::string> schedulerStates(const bench::CollectedPlan& collected);

/// The jobs as a table: order, label, repeat, state, the scheduler's word
/// when given (`scheduler` empty: no column), steps, records, reason.
void printJobTable(std::ostream& out, const bench::CollectedPlan& collected,
                   const std::vector<std::string>& scheduler = {});

/// "4 jobs: 2 completed, 1 unfinished, 1 not-started".
[[nodiscard]] std::string jobCounts(const bench::CollectedPlan& collected);

/// The jobs as a JSON array, in submission order (docs/CLI.md).
[[nodiscard]] Json jobsJson(const bench::CollectedPlan& collected,
                            const std::vector<std::string>& scheduler = {});

}  // namespace tb::cli
