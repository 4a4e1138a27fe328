// The runner owns the results document and rewrites it whole after each
// run: a partial file is always a valid one, and the GUI can reload it at any
// time. A configuration whose runs all failed keeps an empty summary (count
// 0) next to its failed runs, so readers see that it was tried.
#include "tb/bench/ablation_runner.hpp"

#include <algorithm>
#include <chrono>
#include <system_error>

#include "tb/bench/host_cpu.hpp"
#include "tb/bench/run_reading.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/common/paths.hpp"
#include "tb/common/subprocess.hpp"
#include "tb/common/text.hpp"
#include "tb/common/utc_time.hpp"
#include "tb/runs/run_event.hpp"

namespace tb::bench {
namespace {

// The child's last "trainbench: ..." line says why it refused to start.
std::string lastErrorLine(const std::filesystem::path& logFile) {
  const Expected<std::string> log = readFile(logFile);
  if (!log) return {};
  std::string found;
  for (const std::string_view line : split(*log, '\n')) {
    if (line.starts_with("trainbench: ")) found = std::string(line.substr(12));
  }
  return found;
}

AblationResults emptyResults(const AblationSpec& spec) {
  AblationResults results;
  results.appVersion = spec.appVersion;
  results.createdAt = spec.createdAt.empty() ? utcNow(kIsoUtc) : spec.createdAt;
  results.model = spec.model;
  results.steps = spec.steps;
  results.warmupSteps = spec.warmupSteps;
  results.repeats = spec.repeats;
  results.memoryBudgetBytes = spec.memoryBudgetBytes;
  // Partial until the last planned run ends ok: a reader of the file while
  // the benchmark runs, or after a stop, is told so by the file itself.
  results.plannedRuns = static_cast<int>(interleavedSchedule(spec.repeats).size());
  updateCompleteness(results);
  results.machine.device = spec.device;
  results.machine.processes = std::max(1, spec.processes);
  // Named before the first run, so that even a file with no finished run says where it ran.
  const HostCpu cpu = detectHostCpu();
  results.machine.cpuModel = cpu.model;
  results.machine.cores = cpu.physicalCores;
  for (const AblationStep step : kAblationSteps) {
    ConfigurationResult config;
    config.label = std::string(label(step));
    config.model = spec.model;
    results.configurations.push_back(std::move(config));
  }
  return results;
}

void addReading(AblationResults& results, AblationStep step, const RunReading& reading) {
  ConfigurationResult& config = results.configurations[static_cast<std::size_t>(chainIndex(step))];
  config.runs.push_back(reading.measurement);
  if (reading.measurement.state == runs::RunState::Completed) {
    config.stepTimes.insert(config.stepTimes.end(), reading.stepTimes.begin(),
                            reading.stepTimes.end());
    if (config.lossCurve.empty()) config.lossCurve = reading.losses;
  }
  // Nothing to summarise yet is not an error here: the summary stays empty.
  (void)summarizeRuns(config);
  updateCompleteness(results);
  Machine& machine = results.machine;
  if (machine.matmulPath.empty()) machine.matmulPath = reading.matmulPath;
  if (machine.libtorchVersion.empty()) machine.libtorchVersion = reading.torchVersion;
  if (machine.threads == 0) machine.threads = reading.threads;
}

runs::BenchmarkRunRef runRef(const AblationSpec& spec, const std::vector<ScheduledRun>& schedule,
                             std::size_t index) {
  const ScheduledRun& run = schedule[index];
  return {.index = static_cast<std::int64_t>(index),
          .total = static_cast<std::int64_t>(schedule.size()),
          .label = std::string(label(run.step)),
          .repeat = run.repeat,
          .runDir = runDirectory(spec, run).string()};
}

runs::BenchmarkEvent planEvent(const AblationSpec& spec, const std::vector<ScheduledRun>& schedule,
                               const std::filesystem::path& resultsFile) {
  runs::BenchmarkEvent event;
  event.kind = runs::BenchmarkEventKind::Plan;
  runs::BenchmarkPlan& plan = event.plan;
  plan.model = spec.model;
  plan.steps = spec.steps;
  plan.warmupSteps = spec.warmupSteps;
  plan.repeats = spec.repeats;
  plan.memoryBudgetBytes = spec.memoryBudgetBytes;
  plan.budgetFromPredictor = spec.budgetFromPredictor;
  plan.fullRecomputePeakBytes = spec.fullRecomputePeakBytes;
  plan.noRecomputePeakBytes = spec.noRecomputePeakBytes;
  plan.resultsFile = resultsFile.string();
  for (std::size_t index = 0; index < schedule.size(); ++index) {
    plan.runs.push_back(runRef(spec, schedule, index));
  }
  return event;
}

// Why a child did not complete: its summary's message; else (no summary, or
// a failing exit without a message) its last "trainbench: ..." line; else
// how it exited. Decided on what was read, never on a message's wording.
std::string failureMessage(const RunReading& reading, const WatchedOutcome& ended,
                           const std::filesystem::path& logFile) {
  if (reading.summaryWritten && (!reading.message.empty() || ended.exitCode == 0)) {
    return reading.message;
  }
  if (std::string line = lastErrorLine(logFile); !line.empty()) return line;
  const std::string exit = ended.signal != 0 ? "killed by signal " + std::to_string(ended.signal)
                                             : "exit code " + std::to_string(ended.exitCode);
  // Without a summary, how the child died (SIGKILL from the kernel's OOM
  // killer, say) is the only clue left: say both.
  return reading.summaryWritten ? exit : reading.message + " (" + exit + ")";
}

/// Creates `dir` and its parents; the error names it as part of --out.
Status createOutDirectory(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return makeError(writeFailureKind(error.value()),
                     "--out: cannot create " + dir.string() + ": " + error.message());
  }
  return {};
}

/// What every run of one ablation shares.
struct AblationSession {
  const AblationSpec& spec;
  const std::vector<ScheduledRun>& schedule;
  const AblationCallbacks& callbacks;
  std::chrono::steady_clock::time_point started;  ///< events' elapsedSeconds count from here

  void emit(runs::BenchmarkEvent event) const {
    if (!callbacks.events) return;
    event.elapsedSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    callbacks.events(event);
  }
};

/// What one child left once it ended.
struct FinishedChild {
  RunReading reading;        ///< what its run directory says, with its final status
  bool stopNow = false;      ///< the caller stopped the ablation during this run
  double wallSeconds = 0.0;  ///< from its start to its end, as this process saw it
};

/// Runs one child in `dir`, reporting its steps as `progress` (a RunStep
/// event), and reads what it left there.
Expected<FinishedChild> watchChild(const AblationSession& session, const ScheduledRun& run,
                                   const std::filesystem::path& dir,
                                   runs::BenchmarkEvent& progress) {
  const AblationCallbacks& callbacks = session.callbacks;
  // The child's steps as its events file shows them, polled each tick and
  // once more after it ended, so that even a run shorter than a tick
  // reports how far it got.
  const auto reportSteps = [&] {
    if (!callbacks.events) return;
    const std::int64_t done = runs::lastStepOfRun(dir);
    if (done != progress.step) {
      progress.step = done;
      session.emit(progress);
    }
  };
  WatchOptions watch;
  watch.logFile = dir / "output.log";
  const auto runStarted = std::chrono::steady_clock::now();
  Expected<WatchedOutcome> ended =
      runWatchedProcess(childCommand(session.spec, run), watch, callbacks.stop, reportSteps);
  if (!ended) return std::move(ended).error();
  reportSteps();
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - runStarted;

  FinishedChild finished;
  finished.wallSeconds = wall.count();
  finished.reading = readRunDirectory(dir, session.spec.warmupSteps);
  RunReading& reading = finished.reading;
  reading.measurement.repeat = run.repeat;
  reading.message = failureMessage(reading, *ended, watch.logFile);
  // On a terminal, Ctrl-C reaches the child directly and it may end before
  // the watch loop has asked it to: the caller's token decides either way.
  finished.stopNow = ended->stopRequested || callbacks.stop.stopRequested();
  RunMeasurement& measured = reading.measurement;
  if (finished.stopNow && measured.state != runs::RunState::Completed) {
    measured.state = runs::RunState::Interrupted;
  }
  return finished;
}

/// Adds the run to the results and rewrites the results file.
Status recordRun(AblationOutcome& outcome, const ScheduledRun& run, const FinishedChild& finished) {
  addReading(outcome.results, run.step, finished.reading);
  ++outcome.finishedRuns;
  if (finished.stopNow) outcome.stopped = true;
  else if (finished.reading.measurement.state != runs::RunState::Completed) ++outcome.failedRuns;
  return saveResults(outcome.resultsFile, outcome.results);
}

runs::BenchmarkEvent runEndEvent(const runs::BenchmarkRunRef& ref, const FinishedChild& finished) {
  const RunMeasurement& measured = finished.reading.measurement;
  runs::BenchmarkEvent end;
  end.kind = runs::BenchmarkEventKind::RunEnd;
  end.run = ref;
  end.end = {.state = measured.state,
             .message = measured.state == runs::RunState::Completed ? "" : finished.reading.message,
             .tokensPerSecond = measured.tokensPerS,
             .stepTimeSeconds = measured.stepTimeS,
             .peakBytes = measured.peakBytes,
             .wallSeconds = finished.wallSeconds};
  return end;
}

/// The scheduled run at `index`: a clean directory, the child with its start
/// and step events, its reading saved, then its end event.
Status runScheduled(const AblationSession& session, std::size_t index, AblationOutcome& outcome) {
  const ScheduledRun& run = session.schedule[index];
  const std::filesystem::path dir = runDirectory(session.spec, run);
  // The engine appends to a run's events: a rerun into the same --out starts clean.
  // Only creating the directory again is checked, not the removal.
  std::error_code notRemoved;
  std::filesystem::remove_all(dir, notRemoved);
  if (Status created = createOutDirectory(dir); !created) return created;
  runs::BenchmarkEvent progress;
  progress.kind = runs::BenchmarkEventKind::RunStart;
  progress.run = runRef(session.spec, session.schedule, index);
  progress.steps = session.spec.steps;
  session.emit(progress);
  progress.kind = runs::BenchmarkEventKind::RunStep;

  auto finished = watchChild(session, run, dir, progress);
  if (!finished) return std::move(finished).error();
  if (Status saved = recordRun(outcome, run, *finished); !saved) return saved;
  session.emit(runEndEvent(progress.run, *finished));
  return {};
}

/// A results file even when no run finished, then the summary event.
Status endAblation(const AblationSession& session, const AblationOutcome& outcome) {
  if (outcome.finishedRuns == 0) {
    if (Status saved = saveResults(outcome.resultsFile, outcome.results); !saved) return saved;
  }
  runs::BenchmarkEvent summary;
  summary.kind = runs::BenchmarkEventKind::Summary;
  summary.summary = {.finishedRuns = static_cast<std::int64_t>(outcome.finishedRuns),
                     .failedRuns = static_cast<std::int64_t>(outcome.failedRuns),
                     .stopped = outcome.stopped,
                     .resultsFile = outcome.resultsFile.string()};
  session.emit(summary);
  return {};
}

}  // namespace

std::filesystem::path runDirectory(const AblationSpec& spec, const ScheduledRun& run) {
  return spec.outDir / "runs" / (labelSlug(run.step) + "-" + std::to_string(run.repeat + 1));
}

std::vector<std::string> childCommand(const AblationSpec& spec, const ScheduledRun& run) {
  std::vector<std::string> argv{spec.program.string(), "run"};
  argv.insert(argv.end(), spec.modelArgs.begin(), spec.modelArgs.end());
  const std::vector<std::string> flags = engineRunFlags(run.step);
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"--memory-budget", std::to_string(spec.memoryBudgetBytes), "--steps",
                           std::to_string(spec.steps), "--device", spec.device});
  if (spec.threads > 0) argv.insert(argv.end(), {"--threads", std::to_string(spec.threads)});
  if (spec.processes > 0) {
    // A free port per run: runs follow each other, and a port just closed
    // may still be in TIME_WAIT.
    argv.insert(argv.end(),
                {"--nproc-per-node", std::to_string(spec.processes), "--master-port", "0"});
  }
  argv.insert(argv.end(), {"--run-dir", runDirectory(spec, run).string(), "--json"});
  return argv;
}

Status validate(const AblationSpec& spec) {
  const auto bad = [](const std::string& message) {
    return Status(makeError(ErrorKind::BadInput, message));
  };
  if (spec.repeats < 1)
    return bad("--repeats " + std::to_string(spec.repeats) + ": must be at least 1");
  if (spec.steps < 1) return bad("--steps " + std::to_string(spec.steps) + ": must be at least 1");
  if (spec.warmupSteps < 0 || spec.warmupSteps >= spec.steps) {
    return bad("--warmup " + std::to_string(spec.warmupSteps) +
               ": must be at least 0 and less than --steps (" + std::to_string(spec.steps) +
               "), or no step would be measured");
  }
  if (spec.device != "cpu" && spec.device != "cuda") {
    return bad("--device: unknown device '" + spec.device + "' (known: cpu, cuda)");
  }
  if (spec.threads < 0)
    return bad("--threads " + std::to_string(spec.threads) +
               ": must be 0 (physical cores) or more");
  if (spec.processes < 0) {
    return bad("--nproc-per-node " + std::to_string(spec.processes) +
               ": must be 0 (one process) or more");
  }
  if (spec.memoryBudgetBytes == 0) return bad("--memory-budget 0: leaves nothing to run");
  if (spec.program.empty()) return bad("no trainbench program to run the configurations");
  if (spec.outDir.empty()) return bad("--out: an output directory is needed");
  return {};
}

Expected<AblationOutcome> runAblation(const AblationSpec& spec,
                                      const AblationCallbacks& callbacks) {
  if (Status valid = validate(spec); !valid) return std::move(valid).error();
  if (Status created = createOutDirectory(spec.outDir / "runs"); !created) {
    return std::move(created).error();
  }
  const auto started = std::chrono::steady_clock::now();

  AblationOutcome outcome;
  outcome.results = emptyResults(spec);
  outcome.resultsFile = spec.outDir / "results.json";
  const std::vector<ScheduledRun> schedule = interleavedSchedule(spec.repeats);
  const AblationSession session{
      .spec = spec, .schedule = schedule, .callbacks = callbacks, .started = started};
  session.emit(planEvent(spec, schedule, outcome.resultsFile));
  for (std::size_t index = 0; index < schedule.size(); ++index) {
    if (callbacks.stop.stopRequested()) {
      outcome.stopped = true;
      break;
    }
    if (Status ran = runScheduled(session, index, outcome); !ran) return std::move(ran).error();
    if (outcome.stopped) break;
  }
  if (Status ended = endAblation(session, outcome); !ended) return std::move(ended).error();
  return outcome;
}

std::int64_t defaultWarmupSteps(std::int64_t steps) noexcept {
  if (steps < 2) return 0;
  return std::clamp<std::int64_t>(steps / 4, 1, 5);
}

std::filesystem::path benchmarksDirectory() { return dataDirectory() / "benchmarks"; }

std::filesystem::path defaultBenchmarkOutDir(std::string_view model) {
  return benchmarksDirectory() / (utcNow(kCompactUtc) + "-" + std::string(model));
}

}  // namespace tb::bench
