// An engine job is read from its run directory (the engine's events and
// summary, through the same reading as `trainbench benchmark`); a user's
// command from node 0's log (through core/logs, as `trainbench import`).
// Either way a job becomes a ClusterRun and the completed ones are grouped
// into configurations by the cluster files' own rules, so a collected plan
// and an imported file read alike in every chart and report.
#include "tb/bench/cluster_collect.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

#include "tb/bench/ablation_runner.hpp"
#include "tb/bench/imported_logs.hpp"
#include "tb/bench/run_reading.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/common/name_table.hpp"
#include "tb/common/units.hpp"
#include "tb/logs/log_import.hpp"
#include "tb/runs/run_event.hpp"
#include "tb/runs/run_store.hpp"

namespace tb::bench {
namespace {

namespace fs = std::filesystem;

constexpr std::array<EnumName<JobState>, 8> kJobStateNames = {{
    {JobState::NotStarted, "not-started"},
    {JobState::Unfinished, "unfinished"},
    {JobState::Completed, "completed"},
    {JobState::Partial, "partial"},
    {JobState::Interrupted, "interrupted"},
    {JobState::Oom, "oom"},
    {JobState::Failed, "failed"},
    {JobState::Unreadable, "unreadable"},
}};

bool hasContent(const fs::path& file) {
  std::error_code error;
  const auto size = fs::file_size(file, error);
  return !error && size > 0;
}

/// The rows of submitted.tsv or finished.tsv ("ORDER<TAB>ID[<TAB>STATUS]"),
/// by order; a missing file has none, a malformed row is skipped.
std::map<int, std::vector<std::string>> tsvRows(const fs::path& file) {
  std::map<int, std::vector<std::string>> rows;
  const Expected<std::string> text = readFile(file);
  if (!text) return rows;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, '\t')) fields.push_back(cell);
    if (fields.size() < 2) continue;
    try {
      rows[std::stoi(fields[0])] = std::move(fields);
    } catch (const std::exception&) {  // a line cut short by a stopped submit.sh
      continue;
    }
  }
  return rows;
}

int worldSize(const ClusterPlan& plan) { return plan.nodes * plan.gpusPerNode; }

JobState stateOfRun(runs::RunState state) {
  switch (state) {
    case runs::RunState::Completed: return JobState::Completed;
    case runs::RunState::Interrupted: return JobState::Interrupted;
    case runs::RunState::Oom: return JobState::Oom;
    case runs::RunState::Failed: return JobState::Failed;
    case runs::RunState::Running: return JobState::Unfinished;
    case runs::RunState::Unreadable: return JobState::Unreadable;
  }
  return JobState::Unreadable;
}

/// The engine's numbers as a cluster run: throughput per worker, as the
/// cluster files count it (the engine's tokens/s is the whole group's).
ClusterRun engineClusterRun(const ClusterPlan& plan, const PlanJob& job, const RunReading& reading,
                            const std::vector<runs::StepSample>& samples, std::int64_t warmup) {
  const int world = worldSize(plan);
  ClusterRun run;
  run.label = std::string(label(job.step));
  run.model = plan.workload.model;
  run.gpus = world;
  run.tokensPerSPerGpu = reading.measurement.tokensPerS / world;
  if (reading.measurement.stepTimeS > 0.0) run.stepTimeS = reading.measurement.stepTimeS;
  std::uint64_t peak = reading.measurement.peakBytes;
  for (const runs::StepSample& sample : samples) {
    peak = std::max(peak, sample.peakBytes);
    if (!std::isfinite(sample.loss)) continue;
    run.lossSteps.push_back(sample.step);
    run.lossCurve.push_back(sample.loss);
  }
  if (peak > 0) run.peakMemoryGib = static_cast<double>(peak) / kGiB;
  run.notes = "engine run " + job.runDir + ", " + std::to_string(samples.size()) +
              " steps, medians after the first " + std::to_string(warmup);
  return run;
}

void readEngineJob(const fs::path& dir, const ClusterPlan& plan, const CollectOptions& options,
                   JobReading& reading) {
  const fs::path runDir = dir / reading.job.runDir;
  reading.source = reading.job.runDir;
  Expected<runs::EventFile> events = runs::readEvents(runDir);
  if (!events) {
    // core/runs owns the run directory's file names: its error says whether
    // the events are missing or there and unreadable.
    if (events.error().kind != ErrorKind::NotFound) {
      reading.state = JobState::Unreadable;
      reading.reason = events.error().message;
    } else if (hasContent(dir / reading.job.log)) {
      reading.state = JobState::Unfinished;
      reading.reason = "the launcher has started; the engine has written no events yet";
    }
    return;
  }
  const std::vector<runs::StepSample> samples = runs::stepSamples(events->events);
  for (const runs::RunEvent& event : events->events) {
    if (event.kind == runs::EventKind::Start) reading.plannedSteps = event.totalSteps;
  }
  reading.records = static_cast<std::int64_t>(samples.size());
  if (!samples.empty()) reading.lastStep = samples.back().step;
  const std::int64_t warmup =
      options.warmupSteps.value_or(defaultWarmupSteps(reading.plannedSteps.value_or(0)));
  const Expected<runs::RunSummary> summary = runs::readRunSummary(runDir);
  const RunReading measured = readRun(*events, summary, warmup);
  if (summary) {
    reading.state = stateOfRun(summary->state);
    reading.reason = summary->message;
  } else {
    reading.state = JobState::Unfinished;
    reading.reason = "no summary yet: still running, or stopped before it wrote one";
  }
  if (measured.measurement.tokensPerS > 0.0) {
    reading.run = engineClusterRun(plan, reading.job, measured, samples, warmup);
  }
}

void readCommandJob(const fs::path& dir, const ClusterPlan& plan, const CollectOptions& options,
                    JobReading& reading) {
  const fs::path log = dir / reading.job.log;
  reading.source = reading.job.log;
  if (!hasContent(log)) return;
  logs::ImportOptions importing;
  importing.gpus = worldSize(plan);
  importing.skipFirst = options.skipFirst;
  Expected<logs::ImportedLog> imported = logs::importLog(log, importing);
  if (!imported) {
    reading.state = JobState::Unfinished;
    reading.reason = "no training records read yet: " + imported.error().message;
    return;
  }
  reading.records = imported->run.records;
  reading.lastStep = imported->run.lastStep;
  const std::string model = plan.workload.model.empty() ? "unknown" : plan.workload.model;
  Expected<ClusterRun> run =
      clusterRunFromLog(*imported, std::string(label(reading.job.step)), model);
  if (run) reading.run = std::move(*run);
  if (imported->run.partial) {
    reading.state = JobState::Partial;
    reading.reason = imported->run.partialReason;
  } else if (!run) {
    reading.state = JobState::Unreadable;
    reading.reason = run.error().message;
  } else {
    reading.state = JobState::Completed;
  }
}

/// The last non-blank line of a log, from its last 4 KiB: what a launcher
/// that failed said last (a Python traceback's exception, as a rule).
std::string lastLineOf(const fs::path& file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  const std::streamoff start = std::max<std::streamoff>(0, size - 4096);
  in.seekg(start);
  std::string tail(static_cast<std::size_t>(size - start), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  std::istringstream lines(tail);
  std::string line;
  std::string last;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  constexpr std::size_t kShown = 200;
  return last.size() > kShown ? last.substr(0, kShown) + "…" : last;
}

/// What torchrun's submit.sh recorded of a launcher's exit outranks a log
/// that merely looks complete.
void applyExitStatus(const std::vector<std::string>& finished, const fs::path& dir,
                     JobReading& reading) {
  if (finished.size() < 3) return;
  try {
    reading.launcherExit = std::stoi(finished[2]);
  } catch (const std::exception&) {
    return;
  }
  if (*reading.launcherExit == 0) return;
  if (reading.state == JobState::Completed || reading.state == JobState::Unfinished ||
      reading.state == JobState::NotStarted) {
    reading.state = JobState::Failed;
    reading.reason = "the launcher exited with status " + finished[2];
    if (const std::string said = lastLineOf(dir / reading.job.log); !said.empty()) {
      reading.reason += "; node 0's log ends: " + said;
    }
  }
}

AblationResults resultsOf(const ClusterPlan& plan, const std::vector<JobReading>& jobs,
                          const fs::path& dir, const CollectOptions& options) {
  AblationResults results;
  results.model = plan.workload.model.empty() ? "unknown" : plan.workload.model;
  results.imageTag = plan.release;
  results.repeats = plan.repeats;
  results.plannedRuns = static_cast<int>(jobs.size());
  results.machine.device = plan.workload.device;
  results.machine.processes = worldSize(plan);
  std::vector<ClusterRun> completed;
  for (const JobReading& job : jobs) {
    if (job.plannedSteps) {
      results.steps = std::max(results.steps, *job.plannedSteps);
      results.warmupSteps = options.warmupSteps.value_or(defaultWarmupSteps(*job.plannedSteps));
    }
    if (job.state == JobState::Completed && job.run) completed.push_back(*job.run);
  }
  results.completedRuns = static_cast<int>(completed.size());
  results.complete = results.completedRuns == results.plannedRuns;
  if (!completed.empty()) {
    auto configurations =
        configurationsFromClusterRuns(completed, (dir / kClusterPlanFile).string());
    if (configurations) results.configurations = inChainOrder(std::move(*configurations));
  }
  return results;
}

}  // namespace

std::string_view toString(JobState state) noexcept {
  return nameOf(kJobStateNames, state, "unreadable");
}

bool hasEnded(JobState state) noexcept {
  return state != JobState::NotStarted && state != JobState::Unfinished;
}

Expected<CollectedPlan> readPlanFolder(const fs::path& dir, const CollectOptions& options) {
  Expected<ClusterPlan> plan = loadClusterPlan(dir);
  if (!plan) return plan.error();
  CollectedPlan collected;
  collected.plan = std::move(*plan);
  const auto submitted = tsvRows(dir / "submitted.tsv");
  const auto finished = tsvRows(dir / "finished.tsv");
  for (const PlanJob& job : collected.plan.jobs) {
    JobReading reading;
    reading.job = job;
    if (collected.plan.workload.engine) {
      readEngineJob(dir, collected.plan, options, reading);
    } else {
      readCommandJob(dir, collected.plan, options, reading);
    }
    if (const auto row = submitted.find(job.order); row != submitted.end()) {
      reading.submittedId = row->second[1];
    }
    if (const auto row = finished.find(job.order); row != finished.end()) {
      applyExitStatus(row->second, dir, reading);
    }
    collected.jobs.push_back(std::move(reading));
  }
  collected.results = resultsOf(collected.plan, collected.jobs, dir, options);
  return collected;
}

}  // namespace tb::bench
