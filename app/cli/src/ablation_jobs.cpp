// The scheduler is asked job by job with a deadline, so a slow or absent
// controller costs seconds, never a hang; a job it has forgotten (Slurm
// keeps a finished job for MinJobAge, 300 s by default) is asked of its
// accounting, and the files stay the record either way.
#include "ablation_jobs.hpp"

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <map>
#include <ostream>
#include <sstream>

#include "tb/common/subprocess.hpp"

namespace tb::cli {
namespace {

using bench::JobReading;
using bench::JobState;

constexpr std::chrono::milliseconds kAskTimeout{10000};

std::string firstWordOf(const std::string& text) {
  std::istringstream words(text);
  std::string word;
  words >> word;
  return word;
}

// Runs one query; its trimmed stdout, or "" when it failed or said nothing.
Expected<std::string> askScheduler(const std::vector<std::string>& argv) {
  ProcessOptions asking;
  asking.timeout = kAskTimeout;
  Expected<ProcessResult> result = runProcess(argv, asking);
  if (!result) return std::move(result).error();
  if (result->timedOut) {
    return makeError(ErrorKind::Runtime, argv[0] + " did not answer within 10 s");
  }
  if (result->exitCode != 0) return std::string();
  std::string text = result->standardOutput;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string slurmState(const std::string& id) {
  Expected<std::string> shown = askScheduler({"scontrol", "show", "job", "-o", id});
  if (!shown) return "unknown: " + shown.error().message;
  if (const auto at = shown->find("JobState="); at != std::string::npos) {
    return firstWordOf(shown->substr(at + 9));
  }
  // Gone from the controller's memory: its accounting still knows it.
  Expected<std::string> accounted =
      askScheduler({"sacct", "-n", "-P", "-X", "-j", id, "-o", "State"});
  if (accounted && !accounted->empty()) return firstWordOf(*accounted);
  return "unknown: Slurm no longer knows job " + id;
}

std::string kubernetesState(const std::string& name) {
  Expected<std::string> conditions =
      askScheduler({"kubectl", "get", "job", name, "-o",
                    R"(jsonpath={.status.conditions[?(@.status=="True")].type})"});
  if (!conditions) return "unknown: " + conditions.error().message;
  if (conditions->find("Complete") != std::string::npos) return "Complete";
  if (conditions->find("Failed") != std::string::npos) return "Failed";
  return "active";
}

std::string torchrunState(const JobReading& job, const std::map<int, std::string>& exits) {
  if (const auto exit = exits.find(job.job.order); exit != exits.end()) {
    return "exited " + exit->second;
  }
  long pid = 0;
  try {
    pid = std::stol(job.submittedId);
  } catch (const std::exception&) {
    return "unknown: '" + job.submittedId + "' is not a process id";
  }
  if (kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) return "running";
  return "gone (no exit status recorded)";
}

std::string stepCell(const std::optional<std::int64_t>& value) {
  return value ? std::to_string(*value) : "-";
}

std::string stepProgress(const JobReading& job) {
  if (!job.lastStep && !job.plannedSteps) return "-";
  return stepCell(job.lastStep) + (job.plannedSteps ? "/" + std::to_string(*job.plannedSteps) : "");
}

}  // namespace

std::vector<std::string> schedulerStates(const bench::CollectedPlan& collected) {
  std::map<int, std::string> exits;  // torchrun: what submit.sh recorded
  for (const JobReading& job : collected.jobs) {
    if (job.launcherExit) exits[job.job.order] = std::to_string(*job.launcherExit);
  }
  std::vector<std::string> states;
  for (const JobReading& job : collected.jobs) {
    if (job.submittedId.empty()) {
      states.emplace_back();
      continue;
    }
    switch (collected.plan.scheduler) {
      case bench::Scheduler::Slurm: states.push_back(slurmState(job.submittedId)); break;
      case bench::Scheduler::Kubernetes: states.push_back(kubernetesState(job.submittedId)); break;
      case bench::Scheduler::Torchrun: states.push_back(torchrunState(job, exits)); break;
    }
  }
  return states;
}

void printJobTable(std::ostream& out, const bench::CollectedPlan& collected,
                   const std::vector<std::string>& scheduler) {
  const bool withScheduler = !scheduler.empty();
  std::vector<std::string> header = {"#", "Configuration", "Repeat", "State"};
  if (withScheduler) header.emplace_back("Scheduler");
  header.insert(header.end(), {"Step", "Records", "Why"});
  TextTable table(header);
  for (std::size_t i = 0; i < collected.jobs.size(); ++i) {
    const JobReading& job = collected.jobs[i];
    std::vector<std::string> row = {
        std::to_string(job.job.order), std::string(bench::label(job.job.step)),
        std::to_string(job.job.repeat), std::string(bench::toString(job.state))};
    if (withScheduler) row.push_back(scheduler[i].empty() ? "-" : scheduler[i]);
    row.insert(row.end(), {stepProgress(job), std::to_string(job.records), job.reason});
    table.addRow(std::move(row));
  }
  table.print(out);
}

std::string jobCounts(const bench::CollectedPlan& collected) {
  std::map<std::string, int> counts;
  std::vector<std::string> order;
  for (const JobReading& job : collected.jobs) {
    const std::string state(bench::toString(job.state));
    if (counts[state]++ == 0) order.push_back(state);
  }
  std::string text = std::to_string(collected.jobs.size()) + " jobs";
  for (std::size_t i = 0; i < order.size(); ++i) {
    text += (i == 0 ? ": " : ", ") + std::to_string(counts[order[i]]) + " " + order[i];
  }
  return text;
}

Json jobsJson(const bench::CollectedPlan& collected, const std::vector<std::string>& scheduler) {
  Json jobs = Json::array();
  for (std::size_t i = 0; i < collected.jobs.size(); ++i) {
    const JobReading& job = collected.jobs[i];
    Json entry{{"order", job.job.order},
               {"label", bench::label(job.job.step)},
               {"repeat", job.job.repeat},
               {"name", job.job.name},
               {"state", bench::toString(job.state)},
               {"reason", job.reason},
               {"source", job.source},
               {"submitted_id", job.submittedId},
               {"records", job.records},
               {"last_step", job.lastStep ? Json(*job.lastStep) : Json()},
               {"planned_steps", job.plannedSteps ? Json(*job.plannedSteps) : Json()}};
    if (!scheduler.empty()) entry["scheduler_state"] = scheduler[i];
    if (job.run && job.run->tokensPerSPerGpu) {
      entry["tokens_per_s_per_gpu"] = *job.run->tokensPerSPerGpu;
    }
    if (job.run && job.run->stepTimeS) entry["step_time_s"] = *job.run->stepTimeS;
    if (job.run && job.run->peakMemoryGib) entry["peak_memory_gib"] = *job.run->peakMemoryGib;
    jobs.push_back(std::move(entry));
  }
  return jobs;
}

}  // namespace tb::cli
