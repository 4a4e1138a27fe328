// `trainbench benchmark`: the four-step ablation of ARCHITECTURE.md, each run
// a fresh `trainbench run` child of this same binary. The work is done by
// tb::bench::runAblation; this file turns flags into its spec, shows its
// progress on stderr, prints the table (or the results document) on stdout,
// and maps a stop or a failed run onto exit code 1.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>

#include "benchmark_progress.hpp"
#include "benchmark_table.hpp"
#include "command.hpp"
#include "event_output.hpp"
#include "exit_codes.hpp"
#include "model_flags.hpp"
#include "output.hpp"
#include "tb/bench/ablation_runner.hpp"
#include "tb/common/build_info.hpp"
#include "tb/bench/default_budget.hpp"
#include "tb/common/stop_signals.hpp"
#include "tb/common/units.hpp"

namespace tb::cli {
namespace {

struct BenchmarkOptions {
  ModelFlags modelFlags;
  bool ablation = false;
  int repeats = 3;
  std::int64_t steps = 20;
  std::optional<std::int64_t> warmup;
  std::optional<std::uint64_t> memoryBudget;
  int threads = 0;
  std::optional<int> processes;  ///< --nproc-per-node; 0 is refused, unset is one process
  std::string device = "cpu";
  std::string out;
  bool dryRun = false;
  bool json = false;
  std::string events;
};

std::string budgetLine(const bench::AblationSpec& spec,
                       const std::optional<bench::BudgetChoice>& choice) {
  std::string line = "Memory budget: " + std::to_string(spec.memoryBudgetBytes) + " bytes (" +
                     formatBytes(spec.memoryBudgetBytes) + ")";
  if (!choice) return line + ", from --memory-budget";
  return line + " from the predictor: Base (every block recomputed) needs " +
         formatBytes(choice->fullRecomputePeakBytes) + ", keeping every activation " +
         formatBytes(choice->noRecomputePeakBytes);
}

std::string shellWords(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& word : argv) {
    const bool plain = word.find_first_not_of(
                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                           "0123456789-_./:=,+") == std::string::npos;
    text += (text.empty() ? "" : " ") + (plain ? word : "'" + word + "'");
  }
  return text;
}

int printDryRun(const CommandContext& context, const bench::AblationSpec& spec,
                const std::optional<bench::BudgetChoice>& choice, bool json) {
  const std::vector<bench::ScheduledRun> schedule = bench::interleavedSchedule(spec.repeats);
  if (json) {
    Json runs = Json::array();
    for (const bench::ScheduledRun& run : schedule) {
      runs.push_back(Json{{"label", std::string(bench::label(run.step))},
                          {"repeat", run.repeat},
                          {"run_dir", bench::runDirectory(spec, run).string()},
                          {"argv", bench::childCommand(spec, run)}});
    }
    printJson(context.out(), Json{{"model", spec.model},
                                  {"memory_budget_bytes", spec.memoryBudgetBytes},
                                  {"budget_from_predictor", choice.has_value()},
                                  {"steps", spec.steps},
                                  {"warmup_steps", spec.warmupSteps},
                                  {"repeats", spec.repeats},
                                  {"out", spec.outDir.string()},
                                  {"runs", std::move(runs)}});
    return kExitSuccess;
  }
  context.out() << budgetLine(spec, choice) << '\n';
  for (const bench::ScheduledRun& run : schedule) {
    context.out() << shellWords(bench::childCommand(spec, run)) << '\n';
  }
  return kExitSuccess;
}

Expected<bench::AblationSpec> makeSpec(const BenchmarkOptions& options,
                                       std::optional<bench::BudgetChoice>& choice) {
  Expected<model::ModelConfig> model = resolveModel(options.modelFlags);
  if (!model) return std::move(model).error();
  bench::AblationSpec spec;
  auto program = thisProgram();
  if (!program) return std::move(program).error();
  spec.program = std::move(*program);
  spec.modelArgs = modelArguments(options.modelFlags);
  spec.model = model->name;
  spec.steps = options.steps;
  spec.warmupSteps = options.warmup.value_or(bench::defaultWarmupSteps(options.steps));
  spec.repeats = options.repeats;
  spec.threads = options.threads;
  spec.device = options.device;
  if (options.processes) {
    if (*options.processes < 1) {
      return makeError(
          ErrorKind::BadInput,
          "--nproc-per-node " + std::to_string(*options.processes) + ": at least 1 worker per run");
    }
    spec.processes = *options.processes;
  }
  spec.appVersion = std::string(projectVersion());
  spec.outDir = options.out.empty() ? bench::defaultBenchmarkOutDir(model->name)
                                    : std::filesystem::path(options.out);
  if (options.memoryBudget) {
    spec.memoryBudgetBytes = *options.memoryBudget;
  } else {
    Expected<bench::BudgetChoice> predicted =
        bench::defaultMemoryBudget(*model, options.device == "cuda", std::max(1, spec.processes));
    if (!predicted) return std::move(predicted).error();
    choice = *predicted;
    spec.memoryBudgetBytes = predicted->budgetBytes;
    spec.budgetFromPredictor = true;
    spec.fullRecomputePeakBytes = predicted->fullRecomputePeakBytes;
    spec.noRecomputePeakBytes = predicted->noRecomputePeakBytes;
  }
  if (Status valid = bench::validate(spec); !valid) return valid.error();
  return spec;
}

int runBenchmark(const CommandContext& context, const BenchmarkOptions& options) {
  std::optional<bench::BudgetChoice> choice;
  Expected<bench::AblationSpec> spec = makeSpec(options, choice);
  if (!spec) return context.fail(spec.error());
  if (options.json && options.events == "-") {
    return context.fail(makeError(ErrorKind::BadInput,
                                  "--events - and --json both write to stdout; give --events a "
                                  "file, or drop one of them"));
  }
  if (options.dryRun) return printDryRun(context, *spec, choice, options.json);
  std::shared_ptr<std::ofstream> eventsFile;
  const Expected<runs::EventSink> sink = openEventSink(options.events, context.out(), eventsFile);
  if (!sink) {
    return context.fail(sink.error());
  }
  // Whatever is on stdout for programs (--json, --events -), people read stderr.
  const bool stdoutForPrograms = options.json || options.events == "-";
  std::ostream& notes = stdoutForPrograms ? context.err() : context.out();
  const std::size_t total = bench::interleavedSchedule(spec->repeats).size();
  notes << "Ablation of " << spec->model << ": " << total << " runs (" << spec->repeats
        << (spec->repeats == 1 ? " repeat" : " repeats") << " of 4 configurations, interleaved), "
        << spec->steps << " steps each, the first " << spec->warmupSteps << " not measured\n"
        << budgetLine(*spec, choice) << "\nResults: " << (spec->outDir / "results.json").string()
        << '\n'
        << std::flush;

  const StopSignalGuard stop;
  const bool live = &context.err() == &std::cerr && ::isatty(STDERR_FILENO) == 1;
  BenchmarkProgress progress(context.err(), live);
  bench::AblationCallbacks callbacks;
  // People and programs see the same events: the text is rendered from them.
  callbacks.events = [&](const runs::BenchmarkEvent& event) {
    progress.onEvent(event);
    if (*sink) (*sink)(runs::toJsonLine(event));
  };
  callbacks.stop = stop.token();
  Expected<bench::AblationOutcome> outcome = bench::runAblation(*spec, callbacks);
  progress.clear();
  if (!outcome) return context.fail(outcome.error());
  if (options.json) {
    printJson(context.out(), Json::parse(bench::resultsToJson(outcome->results)));
  } else {
    notes << '\n';
    printAblationTable(notes, outcome->results);
  }
  if (outcome->stopped) {
    context.err() << "trainbench: benchmark stopped by "
                  << (stop.signalNumber() == SIGTERM ? "SIGTERM" : "SIGINT") << " after "
                  << outcome->finishedRuns << " of " << total
                  << " runs; results.json is partial and keeps the finished runs: "
                  << outcome->resultsFile.string() << '\n';
    return kExitRuntimeFailure;
  }
  if (outcome->failedRuns > 0) {
    context.err() << "trainbench: " << outcome->failedRuns << " of " << total
                  << " runs did not complete (see the runs' status in "
                  << outcome->resultsFile.string() << ")\n";
    return kExitRuntimeFailure;
  }
  return kExitSuccess;
}

}  // namespace

RegisteredCommand registerBenchmarkCommand(CLI::App& app) {
  auto options = std::make_shared<BenchmarkOptions>();
  CLI::App* command =
      app.add_subcommand("benchmark",
                         "Run the four-step ablation (Base, AC2, +CompilerOpt, +CkptOpt) on the "
                         "embedded engine and write results.json");
  addModelFlags(*command, options->modelFlags);
  command->add_flag("--ablation", options->ablation,
                    "The four-step ablation (today the only benchmark; accepted for clarity)");
  command->add_option("--repeats", options->repeats, "Runs per configuration (default 3)")
      ->type_name("N");
  command->add_option("--steps", options->steps, "Steps per run, warm-up included (default 20)")
      ->type_name("N");
  command
      ->add_option("--warmup", options->warmup,
                   "Steps left out of every statistic (default: a quarter of --steps, 1..5)")
      ->type_name("N");
  command
      ->add_option("--memory-budget", options->memoryBudget,
                   "The budget of every run (default: from the memory predictor)")
      ->type_name("BYTES");
  command
      ->add_option("--threads", options->threads,
                   "CPU threads of every run (default: each runtime's own choice)")
      ->type_name("N");
  command->add_option("--device", options->device, "cpu (default) or cuda, for every run")
      ->type_name("DEV");
  command
      ->add_option("--nproc-per-node", options->processes,
                   "Run every configuration data-parallel over N worker processes "
                   "(trainbench run --nproc-per-node; the budget is per rank)")
      ->type_name("N");
  command
      ->add_option("--out", options->out,
                   "Directory for results.json and runs/ (default: a new one under "
                   "$XDG_DATA_HOME/trainbench/benchmarks)")
      ->type_name("DIR");
  command->add_flag("--dry-run", options->dryRun,
                    "Print the budget and every child's command line, run nothing");
  command->add_flag("--json", options->json, "Print the results document instead of the table");
  command
      ->add_option("--events", options->events,
                   "JSON-line progress events (plan, run_start, run_step, run_end, summary) "
                   "to FILE, or - for stdout")
      ->type_name("FILE|-");
  takeLastOfRepeatedValues(*command);
  command->footer(
      "Exit codes: 0 every run completed; 1 a run failed (oom, crash) or the benchmark was\n"
      "stopped (SIGINT/SIGTERM), results.json keeps the finished runs; 2 bad input.\n"
      "Fields: docs/RESULTS.md, docs/CLI.md.");
  return {command,
          [options](const CommandContext& context) { return runBenchmark(context, *options); }};
}

}  // namespace tb::cli
