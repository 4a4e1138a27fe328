// What the jobs of a cluster plan left in its folder, read from their files
// alone: a scheduler forgets a job minutes after it ended, the files stay.
// Each job's state and progress (last step, records, the medians so far),
// and the ablation's configurations from the jobs that completed, under the
// labels the plan gave them. `trainbench ablation status` puts the
// scheduler's view beside this; `trainbench ablation collect` writes the
// results and the report from it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/bench/cluster_import.hpp"
#include "tb/bench/cluster_plan.hpp"
#include "tb/bench/results.hpp"
#include "tb/common/expected.hpp"

namespace tb::bench {

/// How a job stands by its files.
enum class JobState : std::uint8_t {
  NotStarted,   ///< nothing written yet: queued, or never submitted
  Unfinished,   ///< it has written but not ended: running, or killed before its summary
  Completed,    ///< it ended and trained every step
  Partial,      ///< a framework's log that says the run stopped early
  Interrupted,  ///< stopped by a signal (scancel, a time limit, a drained node)
  Oom,          ///< out of memory
  Failed,       ///< ended with an error
  Unreadable,   ///< its files are there but cannot be read
};

/// "not-started", "unfinished", "completed", "partial", "interrupted",
/// "oom", "failed", "unreadable".
[[nodiscard]] std::string_view toString(JobState state) noexcept;

/// Whether a job in this state will write no more (it ended, one way or another).
[[nodiscard]] bool hasEnded(JobState state) noexcept;

/// One job as its files show it.
struct JobReading {
  PlanJob job;
  JobState state = JobState::NotStarted;
  std::string reason;  ///< why it is not completed, in words; empty when completed
  std::string source;  ///< the file or folder read, relative to the plan folder
  /// What submit.sh recorded when it handed the job over (Slurm's job id,
  /// the Kubernetes Job's name, torchrun's pid); empty: not submitted.
  std::string submittedId;
  /// The launcher's exit status, where submit.sh waited for it (torchrun).
  std::optional<int> launcherExit;
  std::int64_t records = 0;              ///< step records read
  std::optional<std::int64_t> lastStep;  ///< the last step a record names
  std::optional<std::int64_t> plannedSteps;
  /// The numbers so far (medians after the warm-up), when there were any.
  std::optional<ClusterRun> run;
};

/// What collect needs beyond the folder.
struct CollectOptions {
  /// Steps left out of the engine's medians; empty: a quarter of the planned
  /// steps, at least one and at most five (as `trainbench benchmark`).
  std::optional<std::int64_t> warmupSteps;
  /// Records left out of a framework log's medians; empty: what the framework skips.
  std::optional<int> skipFirst;
};

/// A plan folder read back.
struct CollectedPlan {
  ClusterPlan plan;
  std::vector<JobReading> jobs;  ///< in submission order
  /// The configurations of the completed jobs (source Cluster); plannedRuns
  /// counts every job, completedRuns those that completed.
  AblationResults results;
};

/// Reads DIR/plan.json and every job's files. Fails only when the plan
/// cannot be read; a job whose files cannot be read is Unreadable, with why.
[[nodiscard]] Expected<CollectedPlan> readPlanFolder(const std::filesystem::path& dir,
                                                     const CollectOptions& options = {});

}  // namespace tb::bench
