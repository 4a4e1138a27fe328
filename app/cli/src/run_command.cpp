// `trainbench run`: one training run of the embedded engine. The options
// mirror tb::engine::RunConfig one to one; MODEL-FLAGS are the shared ones of
// model_flags.hpp, the engine validates the rest (so its messages name them),
// and this file only wires flags, the event stream, signals and the exit code.
// Without LibTorch the command still exists and says why it cannot run.
#include <CLI/CLI.hpp>

#include <fstream>
#include <memory>
#include <optional>
#include <ostream>

#include "command.hpp"
#include "exit_codes.hpp"
#include "model_flags.hpp"
#include "event_output.hpp"
#include "output.hpp"

#if TB_HAVE_ENGINE
#include <cctype>
#include <cstdlib>
#include <iostream>

#include "run_launcher.hpp"
#include "run_summary_text.hpp"
#include "tb/common/stop_signals.hpp"
#include "tb/common/text.hpp"
#include "tb/engine/launch_env.hpp"
#include "tb/engine/trainer.hpp"
#endif

namespace tb::cli {
namespace {

#if TB_HAVE_ENGINE
struct RunOptions {
  ModelFlags modelFlags;
  std::int64_t steps = 20;
  std::string data = "random";
  int threads = 0;
  std::string device = "cpu";
  std::uint64_t seed = 1234;
  std::int64_t saveEvery = 0;
  std::string resume;
  std::string events;
  std::string runDir;
  std::uint64_t memoryBudget = 0;
  std::string recompute;  ///< empty: CHECKPOINT_OPTIMIZATION decides, else none
  std::string runtime = "tuned";
  std::string compile = "off";
  std::int64_t logEvery = 10;
  std::int64_t seqMin = 0;
  std::int64_t seqMax = 0;
  bool explain = false;
  bool json = false;
  // Data parallelism: the launcher's options (run_launcher.hpp) and the
  // workers' own.
  LaunchOptions launch;
  const CLI::Option* nprocGiven = nullptr;  ///< --nproc-per-node, even as 0 (refused)
  double distTimeoutSeconds = 300.0;
  double bucketMiB = 25.0;
  int zeroStage = 0;
};

// --recompute wins; without it the image's CHECKPOINT_OPTIMIZATION=true means
// auto, as it does for training scripts inside the image.
Expected<engine::RecomputePolicy> recomputePolicy(const std::string& flag) {
  if (!flag.empty()) return engine::parseRecomputePolicy(flag);
  const char* variable = std::getenv("CHECKPOINT_OPTIMIZATION");
  std::string value = variable != nullptr ? variable : "";
  for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (value == "true" || value == "1" || value == "yes" || value == "on") {
    return engine::RecomputePolicy{engine::RecomputeMode::Auto, 0};
  }
  if (value.empty() || value == "false" || value == "0" || value == "no" || value == "off") {
    return engine::RecomputePolicy{};
  }
  return makeError(ErrorKind::BadInput, "CHECKPOINT_OPTIMIZATION: '" + std::string(variable) +
                                            "' is neither true nor false");
}

Expected<bool> parseOnOff(const std::string& flag, const std::string& value) {
  if (value == "on") return true;
  if (value == "off") return false;
  return makeError(ErrorKind::BadInput, flag + ": '" + value + "' is neither on nor off");
}

/// The flags the command parses itself, in the engine's types.
struct RunValues {
  model::ModelConfig model;
  engine::Device device = engine::Device::Cpu;
  engine::RecomputePolicy recompute;
  engine::RuntimeOptions runtime;
  bool compile = false;
};

// Of several bad flags, the first in this order is the one reported.
Expected<RunValues> parseRunValues(const RunOptions& options) {
  auto modelConfig = resolveModel(options.modelFlags);
  if (!modelConfig) return modelConfig.error();
  auto device = engine::parseDevice(options.device);
  if (!device) return device.error();
  auto recompute = recomputePolicy(options.recompute);
  if (!recompute) return recompute.error();
  auto runtime = engine::parseRuntime(options.runtime);
  if (!runtime) return runtime.error();
  auto compile = parseOnOff("--compile", options.compile);
  if (!compile) return compile.error();
  return RunValues{.model = *modelConfig,
                   .device = *device,
                   .recompute = *recompute,
                   .runtime = *runtime,
                   .compile = *compile};
}

Status checkRunValues(const RunOptions& options, const engine::RuntimeOptions& runtime) {
  if (options.json && options.events == "-") {
    return makeError(ErrorKind::BadInput,
                     "--events - and --json both write to stdout; give --events a "
                     "file or drop --json");
  }
  // The workers' own values, checked before any worker starts.
  if (options.distTimeoutSeconds <= 0.0) {
    return makeError(
        ErrorKind::BadInput,
        "--dist-timeout " + formatDecimal(options.distTimeoutSeconds) + ": must be positive");
  }
  if (options.bucketMiB < 0.0) {
    return makeError(ErrorKind::BadInput,
                     "--bucket-mb " + formatDecimal(options.bucketMiB) +
                         ": must be 0 (one all-reduce after backward) or more");
  }
  if (options.zeroStage != 0 && options.zeroStage != 1) {
    return makeError(ErrorKind::BadInput,
                     "--zero " + std::to_string(options.zeroStage) +
                         ": the engine has stage 0 (whole moments on every rank) "
                         "and 1 (moments sharded over the ranks)");
  }
  if (options.zeroStage == 1 && !runtime.flatGradients) {
    return makeError(ErrorKind::BadInput,
                     "--zero 1 shards the flat parameter buffers, which --runtime " +
                         engine::toString(runtime) +
                         " does not use (drop -flat-grads, or --zero 0)");
  }
  return {};
}

/// The run as its flags describe it; the caller wires in where its events
/// go, what stops it and its place in a group.
engine::RunConfig runConfigOf(const RunOptions& options, const RunValues& values) {
  engine::RunConfig config;
  config.model = values.model;
  config.steps = options.steps;
  config.seed = options.seed;
  config.threads = options.threads;
  config.memoryBudgetBytes = options.memoryBudget;
  config.recompute = values.recompute;
  config.data = engine::parseDataChoice(options.data);
  config.device = values.device;
  config.runtime = values.runtime;
  config.compile = values.compile;
  config.logEvery = options.logEvery;
  config.seqMin = options.seqMin;
  config.seqMax = options.seqMax;
  config.runDir = options.runDir;
  config.saveEvery = options.saveEvery;
  config.resumeDir = options.resume;
  return config;
}

/// --explain: what the compiled step runs fused, instead of training.
int printCompiledPlan(const CommandContext& context, const engine::RunConfig& config) {
  auto plan = engine::explainCompiledStep(config);
  if (!plan) return context.fail(plan.error());
  context.out() << *plan;
  return kExitSuccess;
}

int trainAndReport(const CommandContext& context, const RunOptions& options,
                   const engine::RunConfig& config) {
  auto summary = engine::runTraining(config);
  if (!summary) return context.fail(summary.error());
  if (options.json) {
    printJson(context.out(), runs::toJson(*summary));
  } else if (options.events != "-" && summary->rank == 0) {
    // Under torchrun every worker's stdout reaches the terminal: the run's
    // text is rank 0's; the others' summaries are in their ranks/ folders.
    printRunSummary(context.out(), *summary);
  }
  if (summary->state == runs::RunState::Completed) return kExitSuccess;
  context.err() << "trainbench: run " << runs::toString(summary->state) << ": " << summary->message
                << '\n';
  return kExitRuntimeFailure;
}

/// This process trains: alone, or as one worker of a group.
int runAsWorker(const CommandContext& context, const RunOptions& options, const RunValues& values) {
  // A worker of a group (started by the launcher, torchrun, a Kubernetes
  // indexed Job or Slurm) learns its place from the environment.
  auto launched = engine::launchEnvFrom(engine::processEnvironment());
  if (!launched) return context.fail(launched.error());
  // After the checks that need no tensors, so that bad input is refused
  // without a second start; before the events file or anything else is written.
  restartForBlasKernelsIfAllowed();
  std::shared_ptr<std::ofstream> eventsFile;
  auto sink = openEventSink(options.events, context.out(), eventsFile);
  if (!sink) {
    return context.fail(sink.error());
  }

  StopSignalGuard signals;
  engine::RunConfig config = runConfigOf(options, values);
  config.events = *sink;
  config.stop = signals.token();
  if (launched->has_value()) {
    config.dataParallel =
        engine::DataParallel{.launch = **launched,
                             .timeout = std::chrono::milliseconds(
                                 static_cast<std::int64_t>(options.distTimeoutSeconds * 1000.0)),
                             .bucketMiB = options.bucketMiB,
                             .zeroStage = options.zeroStage};
  }

  if (options.explain) return printCompiledPlan(context, config);
  return trainAndReport(context, options, config);
}

int runRun(const CommandContext& context, const RunOptions& options) {
  auto values = parseRunValues(options);
  if (!values) return context.fail(values.error());
  if (Status valid = checkRunValues(options, values->runtime); !valid) {
    return context.fail(valid.error());
  }
  if (options.nprocGiven != nullptr && options.nprocGiven->count() > 0) {
    return launchWorkers(context, options.launch,
                         {.json = options.json,
                          .events = options.events,
                          .distTimeoutSeconds = options.distTimeoutSeconds,
                          .cuda = values->device == engine::Device::Cuda});
  }
  return runAsWorker(context, options, *values);
}
#endif

}  // namespace

RegisteredCommand registerRunCommand(CLI::App& app) {
  constexpr const char* kDescription =
      "Train a Llama-style model with the embedded LibTorch engine and measure it";
#if !TB_HAVE_ENGINE
  return registerUnavailableCommand(app, "run", kDescription,
                                    "LibTorch was not found, so there is no training engine");
#else
  CLI::App* command = app.add_subcommand("run", kDescription);
  auto options = std::make_shared<RunOptions>();
  addModelFlags(*command, options->modelFlags);
  command->add_option("--steps", options->steps, "Steps to train (default 20)")->type_name("N");
  command
      ->add_option("--data", options->data,
                   "random (default), synthetic (a learnable task) or a text FILE")
      ->type_name("FILE");
  command
      ->add_option("--threads", options->threads,
                   "CPU threads, 1 to 4096 (default, or 0: physical cores)")
      ->type_name("N");
  command->add_option("--device", options->device, "cpu (default) or cuda")->type_name("DEV");
  command->add_option("--seed", options->seed, "Seed of weights and data (default 1234)")
      ->type_name("N");
  command->add_option("--save-every", options->saveEvery, "Checkpoint every N steps")
      ->type_name("N");
  command->add_option("--resume", options->resume, "Continue from a run directory's checkpoint")
      ->type_name("DIR");
  command->add_option("--events", options->events, "JSON-line events to FILE, or - for stdout")
      ->type_name("FILE|-");
  command
      ->add_option("--run-dir", options->runDir,
                   "Run directory (default: a new one under $XDG_DATA_HOME/trainbench/runs)")
      ->type_name("DIR");
  command
      ->add_option("--memory-budget", options->memoryBudget,
                   "Refuse CPU tensor allocations past BYTES (status oom)")
      ->type_name("BYTES");
  command
      ->add_option("--recompute", options->recompute,
                   "none (default), selective, selective:MODULES (core_attn, layernorm, "
                   "mlp_act, head), full, layers:K, layers:K+selective[:MODULES], or auto (the "
                   "planner's choice for --memory-budget; CHECKPOINT_OPTIMIZATION=true "
                   "also means auto)")
      ->type_name("POLICY");
  command
      ->add_option("--runtime", options->runtime,
                   "tuned (AC2, default) or stock, then optional ,-SWITCH or ,+SWITCH "
                   "(threads, matmul, sync, flat-grads, gqa, alloc)")
      ->type_name("RUNTIME");
  command
      ->add_option("--compile", options->compile,
                   "on: the compiled step with fused operators; off (default)")
      ->type_name("on|off");
  command->add_flag("--explain", options->explain,
                    "Print what the compiled step runs fused and what falls back, then exit");
  command
      ->add_option("--log-every", options->logEvery,
                   "Read loss back every N steps under the tuned runtime (default 10)")
      ->type_name("N");
  command
      ->add_option("--seq-min", options->seqMin,
                   "Shortest sequence of a step (default: the model's seq)")
      ->type_name("N");
  command
      ->add_option("--seq-max", options->seqMax,
                   "Longest sequence of a step (default: the model's seq)")
      ->type_name("N");
  command->add_flag("--json", options->json, "Print the summary as one JSON document");
  options->nprocGiven =
      command
          ->add_option("--nproc-per-node", options->launch.nprocPerNode,
                       "Train data-parallel: start N worker processes on this node (the "
                       "launcher hosts the rendezvous store on node 0)")
          ->type_name("N");
  command->add_option("--nnodes", options->launch.nnodes, "Nodes of the group (default 1)")
      ->type_name("M");
  command->add_option("--node-rank", options->launch.nodeRank, "This node's rank (default 0)")
      ->type_name("R");
  command
      ->add_option("--master-addr", options->launch.masterAddr,
                   "Host of the rendezvous store (default 127.0.0.1)")
      ->type_name("HOST");
  command
      ->add_option("--master-port", options->launch.masterPort,
                   "Port of the rendezvous store (default 29500; 0: a free one, one node)")
      ->type_name("PORT");
  command
      ->add_option("--dist-timeout", options->distTimeoutSeconds,
                   "Deadline of every collective and store call, in seconds (default 300)")
      ->type_name("SECONDS");
  command
      ->add_option("--bucket-mb", options->bucketMiB,
                   "Gradient all-reduce bucket size in MiB (default 25, the first 1); 0: one "
                   "all-reduce after backward")
      ->type_name("MB");
  command
      ->add_option("--zero", options->zeroStage,
                   "0: AdamW's moments whole on every rank (default); 1: sharded over the "
                   "ranks, each updating its shard of the weights, which are then gathered")
      ->type_name("STAGE");
  takeLastOfRepeatedValues(*command);
  command->footer(
      "Exit codes: 0 completed; 1 oom, interrupted (SIGINT/SIGTERM) or failed, with the\n"
      "summary still written to the run directory; 2 bad input. With --nproc-per-node the\n"
      "first failing worker's code (128+N for signal N), naming its rank. Workers started\n"
      "by torchrun (--no-python) read RANK, WORLD_SIZE, MASTER_ADDR, ... Fields: docs/CLI.md.");
  return {command, [options](const CommandContext& context) { return runRun(context, *options); }};
#endif
}

}  // namespace tb::cli
