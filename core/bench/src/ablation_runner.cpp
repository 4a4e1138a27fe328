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

// "AC2+CompilerOpt" -> "ac2-compileropt": no '+' in paths that shells and
// URLs handle.
std::string slug(AblationStep step) {
  std::string text = toLower(label(step));
  for (char& c : text) c = c == '+' ? '-' : c;
  return text;
}

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
  return {static_cast<std::int64_t>(index), static_cast<std::int64_t>(schedule.size()),
          std::string(label(run.step)), run.repeat, runDirectory(spec, run).string()};
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
  const std::string exit = ended.signal != 0
                               ? "killed by signal " + std::to_string(ended.signal)
                               : "exit code " + std::to_string(ended.exitCode);
  // Without a summary, how the child died (SIGKILL from the kernel's OOM
  // killer, say) is the only clue left: say both.
  return reading.summaryWritten ? exit : reading.message + " (" + exit + ")";
}

}  // namespace

std::filesystem::path runDirectory(const AblationSpec& spec, const ScheduledRun& run) {
  return spec.outDir / "runs" / (slug(run.step) + "-" + std::to_string(run.repeat + 1));
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
  if (spec.repeats < 1) return bad("--repeats: " + std::to_string(spec.repeats) + " is not >= 1");
  if (spec.steps < 1) return bad("--steps: " + std::to_string(spec.steps) + " is not >= 1");
  if (spec.warmupSteps < 0 || spec.warmupSteps >= spec.steps) {
    return bad("--warmup: " + std::to_string(spec.warmupSteps) +
               " must be at least 0 and less than --steps (" + std::to_string(spec.steps) +
               "), or no step would be measured");
  }
  if (spec.device != "cpu" && spec.device != "cuda") {
    return bad("--device: unknown device '" + spec.device + "' (known: cpu, cuda)");
  }
  if (spec.threads < 0) return bad("--threads: " + std::to_string(spec.threads) + " is negative");
  if (spec.processes < 0) {
    return bad("--nproc-per-node: " + std::to_string(spec.processes) + " is negative");
  }
  if (spec.memoryBudgetBytes == 0) return bad("--memory-budget: 0 bytes leaves nothing to run");
  if (spec.program.empty()) return bad("no trainbench program to run the configurations");
  if (spec.outDir.empty()) return bad("--out: an output directory is needed");
  return {};
}

Expected<AblationOutcome> runAblation(const AblationSpec& spec,
                                      const AblationCallbacks& callbacks) {
  if (Status valid = validate(spec); !valid) return std::move(valid).error();
  std::error_code error;
  std::filesystem::create_directories(spec.outDir / "runs", error);
  if (error) {
    return makeError(writeFailureKind(error.value()),
                     "--out: cannot create " + (spec.outDir / "runs").string() + ": " + error.message());
  }
  const auto started = std::chrono::steady_clock::now();
  const auto emit = [&callbacks, started](runs::BenchmarkEvent event) {
    if (!callbacks.events) return;
    event.elapsedSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    callbacks.events(event);
  };

  AblationOutcome outcome;
  outcome.results = emptyResults(spec);
  outcome.resultsFile = spec.outDir / "results.json";
  const std::vector<ScheduledRun> schedule = interleavedSchedule(spec.repeats);
  emit(planEvent(spec, schedule, outcome.resultsFile));
  for (std::size_t index = 0; index < schedule.size(); ++index) {
    if (callbacks.stop.stopRequested()) {
      outcome.stopped = true;
      break;
    }
    const ScheduledRun& run = schedule[index];
    const std::filesystem::path dir = runDirectory(spec, run);
    // The engine appends to a run's events: a rerun into the same --out starts clean.
    std::filesystem::remove_all(dir, error);
    std::filesystem::create_directories(dir, error);
    if (error) {
      return makeError(writeFailureKind(error.value()),
                       "--out: cannot create " + dir.string() + ": " + error.message());
    }
    runs::BenchmarkEvent progress;
    progress.kind = runs::BenchmarkEventKind::RunStart;
    progress.run = runRef(spec, schedule, index);
    progress.steps = spec.steps;
    emit(progress);
    progress.kind = runs::BenchmarkEventKind::RunStep;

    // The child's steps as its events file shows them, polled each tick and
    // once more after it ended, so that even a run shorter than a tick
    // reports how far it got.
    const auto reportSteps = [&] {
      if (!callbacks.events) return;
      const std::int64_t done = runs::lastStepOfRun(dir);
      if (done != progress.step) {
        progress.step = done;
        emit(progress);
      }
    };
    WatchOptions watch;
    watch.logFile = dir / "output.log";
    const auto runStarted = std::chrono::steady_clock::now();
    Expected<WatchedOutcome> ended =
        runWatchedProcess(childCommand(spec, run), watch, callbacks.stop, reportSteps);
    if (!ended) return std::move(ended).error();
    reportSteps();
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - runStarted;

    RunReading reading = readRunDirectory(dir, spec.warmupSteps);
    reading.measurement.repeat = run.repeat;
    reading.message = failureMessage(reading, *ended, watch.logFile);
    // On a terminal, Ctrl-C reaches the child directly and it may end before
    // the watch loop has asked it to: the caller's token decides either way.
    const bool stopNow = ended->stopRequested || callbacks.stop.stopRequested();
    RunMeasurement& measured = reading.measurement;
    if (stopNow && measured.state != runs::RunState::Completed) {
      measured.state = runs::RunState::Interrupted;
    }
    addReading(outcome.results, run.step, reading);
    ++outcome.finishedRuns;
    if (stopNow) outcome.stopped = true;
    else if (measured.state != runs::RunState::Completed) ++outcome.failedRuns;
    if (Status saved = saveResults(outcome.resultsFile, outcome.results); !saved) {
      return std::move(saved).error();
    }
    runs::BenchmarkEvent end;
    end.kind = runs::BenchmarkEventKind::RunEnd;
    end.run = progress.run;
    end.end = {measured.state, measured.state == runs::RunState::Completed ? "" : reading.message,
               measured.tokensPerS, measured.stepTimeS, measured.peakBytes, wall.count()};
    emit(end);
    if (outcome.stopped) break;
  }
  if (outcome.finishedRuns == 0) {
    if (Status saved = saveResults(outcome.resultsFile, outcome.results); !saved) {
      return std::move(saved).error();
    }
  }
  runs::BenchmarkEvent summary;
  summary.kind = runs::BenchmarkEventKind::Summary;
  summary.summary = {static_cast<std::int64_t>(outcome.finishedRuns),
                     static_cast<std::int64_t>(outcome.failedRuns), outcome.stopped,
                     outcome.resultsFile.string()};
  emit(summary);
  return outcome;
}

std::filesystem::path benchmarksDirectory() { return dataDirectory() / "benchmarks"; }

std::filesystem::path defaultBenchmarkOutDir(std::string_view model) {
  return benchmarksDirectory() / (utcNow(kCompactUtc) + "-" + std::string(model));
}

}  // namespace tb::bench
