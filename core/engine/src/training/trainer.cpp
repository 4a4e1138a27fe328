// runTraining in three phases: check everything that can be checked without
// tensors (so bad input is an Error before a run directory exists), set up the
// process (allocator, threads, matmul probe, the step's operators, the
// data-parallel group) and the run directory, then hand over to the training
// loop and turn its result into the summary.
//
// A data-parallel run has one run directory: rank 0 creates it (and writes
// the run's config, events and summary there, with global figures) and
// passes its path through the rendezvous store; every other rank writes its
// own events and summary below it (runs::rankDirectory).
#include "tb/engine/trainer.hpp"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "distributed/c10d_communicator.hpp"
#include "distributed/nccl_communicator.hpp"
#include "matmul/block_timing.hpp"
#include "fused/compiled_step.hpp"
#include "model/decoder_ops.hpp"
#include "runtime/host_runtime.hpp"
#include "matmul/matmul_probe.hpp"
#include "training/recompute_choice.hpp"
#include "runtime/torch_compat.hpp"
#include "runtime/tracking_allocator.hpp"
#include "training/training_loop.hpp"
#include "tb/common/host_cores.hpp"
#include "tb/common/statistics.hpp"
#include "tb/common/text.hpp"
#include "tb/runs/model_json.hpp"
#include "tb/runs/run_store.hpp"
#include "tb/engine/blas_kernels.hpp"

namespace tb::engine {
namespace {

constexpr int kMaxThreads = 4096;

Error bad(const std::string& message) { return makeError(ErrorKind::BadInput, message); }

Status checkRun(const RunConfig& config) {
  if (const Status model = validate(config.model); !model) return model;
  if (config.steps < 1) {
    return bad("--steps " + std::to_string(config.steps) + ": must be at least 1");
  }
  if (config.threads < 0 || config.threads > kMaxThreads) {
    return bad("--threads " + std::to_string(config.threads) +
               ": must be between 0 (physical cores) and " + std::to_string(kMaxThreads));
  }
  if (config.logEvery < 1) {
    return bad("--log-every " + std::to_string(config.logEvery) + ": must be at least 1");
  }
  if (config.seqMin != 0 || config.seqMax != 0) {
    const std::int64_t lo = config.seqMin != 0 ? config.seqMin : config.model.seq;
    const std::int64_t hi = config.seqMax != 0 ? config.seqMax : config.model.seq;
    if (lo < 2 || lo > hi || hi > config.model.seq) {
      return bad("sequence range --seq-min " + std::to_string(lo) + " --seq-max " +
                 std::to_string(hi) + " must satisfy 2 <= min <= max <= the model's seq " +
                 std::to_string(config.model.seq));
    }
  }
  if (config.dataParallel) {
    if (config.dataParallel->bucketMiB < 0.0) {
      return bad("--bucket-mb " + formatDecimal(config.dataParallel->bucketMiB) +
                 ": must be 0 (one all-reduce after backward) or more");
    }
    if (config.dataParallel->zeroStage != 0 && config.dataParallel->zeroStage != 1) {
      return bad("--zero " + std::to_string(config.dataParallel->zeroStage) +
                 ": not a stage the engine has (0: whole moments on every rank, 1: moments "
                 "sharded over the ranks)");
    }
    if (config.dataParallel->zeroStage == 1 && !config.runtime.flatGradients) {
      return bad("zero 1 shards the flat parameter buffers, which runtime '" +
                 toString(config.runtime) + "' does not use (drop -flat-grads, or --zero 0)");
    }
    if (config.dataParallel->timeout.count() <= 0) {
      return bad("--dist-timeout " +
                 formatDecimal(static_cast<double>(config.dataParallel->timeout.count()) / 1000.0) +
                 ": must be positive");
    }
  }
  if (config.saveEvery < 0) {
    return bad("--save-every " + std::to_string(config.saveEvery) + ": must be 0 (never) or more");
  }
  if (config.device == Device::Cuda && !cudaAvailable()) {
    const std::string why =
        at::hasCUDA() ? "no CUDA device is visible" : "this build of LibTorch has no CUDA support";
    return makeError(ErrorKind::Runtime, std::string("--device cuda: ") + why + " (LibTorch " +
                                             compat::kTorchVersion + ")");
  }
  return {};
}

Status checkResume(const RunConfig& config, const Checkpoint& checkpoint) {
  if (!(checkpoint.model == config.model)) {
    return bad("the checkpoint in " + config.resumeDir.string() + " is of model " +
               runs::modelToJson(checkpoint.model).dump() + ", not the requested " +
               runs::modelToJson(config.model).dump());
  }
  if (checkpoint.seed != config.seed) {
    return bad("the checkpoint in " + config.resumeDir.string() + " was trained with seed " +
               std::to_string(checkpoint.seed) + ", this run asks for seed " +
               std::to_string(config.seed));
  }
  // The global batch is world size x micro-batch and each rank trains its
  // slice: another world size would continue another trajectory, so it is
  // refused rather than silently resumed.
  const std::filesystem::path runDir = std::filesystem::is_directory(config.resumeDir)
                                           ? config.resumeDir
                                           : config.resumeDir.parent_path();
  if (auto saved = runs::readRunConfig(runDir); saved) {
    const int world = config.dataParallel ? config.dataParallel->launch.worldSize : 1;
    if (saved->worldSize != world) {
      return bad("the checkpoint in " + config.resumeDir.string() + " was trained by " +
                 std::to_string(saved->worldSize) + " process(es); this run has " +
                 std::to_string(world) + ": resume at the same world size (--nproc-per-node " +
                 std::to_string(saved->worldSize) + " on one node)");
    }
  }
  if (checkpoint.step >= config.steps) {
    return bad("the checkpoint in " + config.resumeDir.string() + " is at step " +
               std::to_string(checkpoint.step) + ", already at or past steps " +
               std::to_string(config.steps));
  }
  return {};
}

/// Intra-op threads and the BLAS library's own pool (0: it has none).
struct HostThreads {
  int intraOp = 1;
  int blas = 0;
};

runs::RunConfigRecord configRecord(const RunConfig& config, HostThreads threads) {
  static constexpr const char* kDataNames[] = {"random", "synthetic", "text"};
  runs::RunConfigRecord record;
  record.model = config.model;
  record.steps = config.steps;
  record.seed = config.seed;
  record.threads = threads.intraOp;
  record.blasThreads = threads.blas;
  record.blasCore = blasCoreName();
  record.memoryBudget = config.memoryBudgetBytes;
  record.recompute = toString(config.recompute);
  record.dataKind = kDataNames[static_cast<int>(config.data.kind)];
  record.dataFile = config.data.file.string();
  record.device = toString(config.device);
  record.runtime = toString(config.runtime);
  record.compile = config.compile;
  record.logEvery = config.logEvery;
  record.seqMin = config.seqMin != 0 ? config.seqMin : config.model.seq;
  record.seqMax = config.seqMax != 0 ? config.seqMax : config.model.seq;
  record.saveEvery = config.saveEvery;
  record.resume = config.resumeDir.string();
  record.torchVersion = compat::kTorchVersion;
  if (config.dataParallel) {
    record.worldSize = config.dataParallel->launch.worldSize;
    record.rank = config.dataParallel->launch.rank;
    record.bucketMiB = config.dataParallel->bucketMiB;
    record.distTimeoutMs = config.dataParallel->timeout.count();
    record.zeroStage = config.dataParallel->zeroStage;
  }
  return record;
}

/// The threads a run computes with: --threads if given, else physical cores
/// (tuned) or LibTorch's own default (stock), remembered before any run
/// changed it.
int threadsFor(const RunConfig& config) {
  static const int libtorchDefault = at::get_num_threads();
  if (config.threads > 0) return config.threads;
  // The workers of one node share its cores.
  const int share = config.dataParallel ? config.dataParallel->launch.localWorldSize : 1;
  return std::max(1, (config.runtime.threads ? tb::physicalCoreCount() : libtorchDefault) / share);
}

/// Joins the data-parallel group of a launched worker (Gloo on the CPU,
/// NCCL on a GPU); null for one process.
Expected<std::unique_ptr<Communicator>> joinGroup(const RunConfig& config) {
  if (!config.dataParallel) return std::unique_ptr<Communicator>();
  const auto host = hostInterfaces();
  auto interfaces = glooInterfaces(processEnvironment(), host);
  if (!interfaces) return interfaces.error();
  const GroupSettings settings{.launch = config.dataParallel->launch,
                               .timeout = config.dataParallel->timeout,
                               .interfaces = *interfaces};
  if (config.device == Device::Cuda) {
    if (Status nccl = checkNcclInterfaces(processEnvironment(), host); !nccl) return nccl.error();
    return joinNcclGroup(settings);
  }
  return joinGlooGroup(settings);
}

/// The run's directory: rank 0 makes it and tells the others, who each keep
/// theirs below it. A rank 0 that cannot make it says so through the store
/// too, so that nobody waits for a path that will not come.
Expected<runs::RunDirectory> openRunDirectory(const RunConfig& config, Communicator* group) {
  constexpr const char* kKey = "run_dir";
  constexpr char kFailed = '!';
  if (group == nullptr) return runs::RunDirectory::create(config.runDir, config.model.name);
  if (group->rank() == 0) {
    auto directory = runs::RunDirectory::create(config.runDir, config.model.name);
    group->publish(kKey,
                   directory ? directory->path().string() : kFailed + directory.error().message);
    return directory;
  }
  std::string path;
  try {
    path = group->fetch(kKey);
  } catch (const CollectiveError& error) {
    return makeError(ErrorKind::Runtime, error.what());
  }
  if (!path.empty() && path.front() == kFailed) {
    return makeError(ErrorKind::Runtime,
                     "rank 0 could not create the run directory: " + path.substr(1));
  }
  return runs::RunDirectory::create(runs::rankDirectory(path, group->rank()), config.model.name);
}

/// Every rank's peak, once all of them finished the same steps; the run's
/// peak is the largest.
void gatherRanks(Communicator& group, RunSummary& summary) {
  at::Tensor peaks = at::zeros({group.worldSize()}, at::kLong);
  peaks[group.rank()] = static_cast<std::int64_t>(summary.peakBytes);
  group.allReduceSum(peaks, "all-reduce of every rank's peak memory")->wait();
  for (int rank = 0; rank < group.worldSize(); ++rank) {
    const auto peak = static_cast<std::uint64_t>(peaks[rank].item<std::int64_t>());
    summary.ranks.push_back(
        {.rank = rank, .state = summary.state, .peakBytes = peak, .message = ""});
    summary.peakBytes = std::max(summary.peakBytes, peak);
  }
}

/// Before the probe: stock keeps both libraries' defaults (restored, since a
/// tuned run in the same process may have changed them); tuned gives both the
/// whole pool, so that each matmul path is timed at its best.
void setThreadsForProbe(const RunConfig& config, int pool) {
  static const int blasDefault = blasLibraryThreads();
  at::set_num_threads(pool);
  setBlasLibraryThreads(config.runtime.threads ? pool : blasDefault);
}

/// Whether the tuned runtime splits the pool between the two libraries, so
/// that the paths train in different threads.
bool splitsThePool(const RunConfig& config, int pool) {
  return config.runtime.threads && blasLibraryThreads() > 0 && pool > 1;
}

/// The tuned runtime hands the pool to the library that runs the products on
/// `path` and leaves the other one thread: two pools of spinning threads on
/// the same cores made a `small` step 2.6x slower (docs/PERF.md). The probe
/// times each candidate path in these threads too; timed with both pools
/// full, oneDNN shared the cores with OpenBLAS threads still spinning from
/// ATen's pass, and lost the race to a path that trains a `small` step about
/// 30 % slower.
HostThreads arrangeThreads(const RunConfig& config, int pool, const MatmulPath& path) {
  if (splitsThePool(config, pool)) {
    const bool blasRunsProducts = &path == &atenMatmulPath();
    at::set_num_threads(blasRunsProducts ? 1 : pool);
    setBlasLibraryThreads(blasRunsProducts ? pool : 1);
  }
  return {at::get_num_threads(), blasLibraryThreads()};
}

/// How the tuned runtime races the CPU paths: each in the threads it would
/// train with, on one block of the step's own operators (`opsOn`). Only when
/// the paths would train in different threads is a block timed (fastestPath
/// weighs it with the products); else the products' rates decide, as a block
/// adds nothing they do not time.
template <typename OpsOn>
PathRace pathRace(const RunConfig& config, c10::Device device, int pool, const OpsOn& opsOn) {
  PathRace race;
  if (!config.runtime.matmul || device.is_cuda() || !splitsThePool(config, pool)) return race;
  race.arrange = [&config, pool](const MatmulPath& path) { arrangeThreads(config, pool, path); };
  // Built on first use: a probe measured earlier in this process needs no block.
  auto timing = std::make_shared<std::unique_ptr<BlockTiming>>();
  race.timeBlock = [timing, opsOn, &config, device](const MatmulPath& path) {
    if (!*timing) *timing = std::make_unique<BlockTiming>(config.model, device);
    return (*timing)->seconds(*opsOn(path));
  };
  race.variant = std::string(config.compile ? "compiled" : "reference") +
                 (config.runtime.gqaInPlace ? ", gqa in place" : "");
  return race;
}

nlohmann::json probeToJson(const MatmulChoice& choice) {
  nlohmann::json paths = nlohmann::json::object();
  nlohmann::json blocks = nlohmann::json::object();
  for (const PathRate& rate : choice.candidates) {
    paths[rate.path] = rate.gflops;
    if (rate.blockSeconds > 0.0) blocks[rate.path] = 1e3 * rate.blockSeconds;
  }
  nlohmann::json probe{
      {"gflops", paths}, {"peak_gflops", choice.peak.gflops}, {"peak_source", choice.peak.path}};
  if (!blocks.empty()) probe["block_ms"] = blocks;
  return probe;
}

nlohmann::json planToJson(const StepPlan& plan) {
  nlohmann::json decisions = nlohmann::json::array();
  for (const FusionDecision& decision : plan.decisions) {
    decisions.push_back({{"pattern", decision.pattern},
                         {"op", decision.op},
                         {"fused", decision.fused},
                         {"reason", decision.reason},
                         {"count", decision.count}});
  }
  return decisions;
}

/// What a run reads and checks before it touches the process: the recompute
/// policy it trains with, this rank's data, and the checkpoint it resumes
/// from (none for a fresh start).
struct CheckedInputs {
  RecomputeChoice recompute;
  TokenBatches data;
  std::optional<Checkpoint> resume;
};

/// The checkpoint --resume names, checked against this run; none without it.
Expected<std::optional<Checkpoint>> loadResume(const RunConfig& config) {
  if (config.resumeDir.empty()) return std::optional<Checkpoint>();
  auto loaded = loadCheckpoint(config.resumeDir);
  if (!loaded) return loaded.error();
  if (const Status fits = checkResume(config, *loaded); !fits) return fits.error();
  return std::optional<Checkpoint>(std::move(*loaded));
}

/// Everything that is checked or read without tensors, so that bad input is
/// an Error before a run directory exists.
Expected<CheckedInputs> checkAndLoad(const RunConfig& config) {
  if (const Status valid = checkRun(config); !valid) return valid.error();
  auto recompute = chooseRecompute(config);
  if (!recompute) return recompute.error();
  auto data = TokenBatches::open(config.data, config.model, config.seed);
  if (!data) return data.error();
  if (config.dataParallel) data->shard(config.dataParallel->launch.rank);
  auto resume = loadResume(config);
  if (!resume) return resume.error();
  return CheckedInputs{
      .recompute = std::move(*recompute), .data = std::move(*data), .resume = std::move(*resume)};
}

/// The step's operators with their products on `path`: the compiled step's
/// (fused where the plan fuses) or the reference ones.
std::unique_ptr<DecoderOps> stepOps(const RunConfig& config, const StepPlan& plan,
                                    const MatmulPath& path) {
  const bool gqaInPlace = config.runtime.gqaInPlace;
  return config.compile ? makeCompiledOps(plan, path, gqaInPlace)
                        : makeReferenceOps(path, gqaInPlace);
}

/// The process as the run computes in it, set up before the run's first
/// tensor: the tracking allocator, the device, the compiled step's plan, the
/// matmul path the probe chose and the threads arranged for it.
struct HostSetup {
  TrackingCpuAllocator* allocator = nullptr;
  c10::Device device;
  StepPlan plan;
  MatmulChoice matmul;
  HostThreads threads;
};

HostSetup setUpHost(const RunConfig& config) {
  if (config.runtime.keepMemory) keepFreedHostMemory();
  auto& allocator = TrackingCpuAllocator::install();
  const c10::Device device = config.device == Device::Cuda ? c10::Device(c10::DeviceType::CUDA, 0)
                                                           : c10::Device(c10::DeviceType::CPU);
  StepPlan plan = planCompiledStep(config);
  // The race is over when chooseMatmulPath returns: nothing holds `plan` past it.
  const auto opsOn = [&config, &plan](const MatmulPath& path) {
    return stepOps(config, plan, path);
  };
  const int pool = threadsFor(config);
  setThreadsForProbe(config, pool);
  MatmulChoice matmul = chooseMatmulPath(config.model, device, config.runtime.matmul,
                                         pathRace(config, device, pool, opsOn));
  const HostThreads threads = arrangeThreads(config, pool, *matmul.path);
  return {.allocator = &allocator,
          .device = device,
          .plan = std::move(plan),
          .matmul = std::move(matmul),
          .threads = threads};
}

/// The summary's fields that are known before the first step.
RunSummary openingSummary(const LoopInputs& in, const HostSetup& host) {
  const RunConfig& config = *in.config;
  RunSummary summary;
  summary.model = config.model.name;
  summary.params = parameterCount(config.model);
  summary.flopsPerToken = flopsPerToken(config.model);
  summary.matmulGflops = host.matmul.peak.gflops;
  summary.matmulPath = std::string(host.matmul.path->name());
  summary.runtime = toString(config.runtime);
  summary.compile = config.compile;
  summary.threads = host.threads.intraOp;
  summary.device = std::string(toString(config.device));
  summary.runDir = in.directory->path();
  summary.recompute = toString(in.recompute);
  if (in.communicator != nullptr) {
    summary.worldSize = in.communicator->worldSize();
    summary.rank = in.communicator->rank();
  }
  return summary;
}

/// Opens the run's measurements: the peaks restart from what is live now,
/// and the start event records the configuration and what was chosen for it.
RunSummary announceStart(const LoopInputs& in, const HostSetup& host,
                         const RecomputeChoice& recompute, const runs::RunConfigRecord& record) {
  RunSummary summary = openingSummary(in, host);
  host.allocator->resetPeak();
  if (host.device.is_cuda()) compat::resetCudaPeak(0);
  in.events->emit("start",
                  {{"config", runs::toJson(record)},
                   {"params", summary.params},
                   {"flops_per_token", summary.flopsPerToken},
                   {"matmul_gflops", summary.matmulGflops},
                   {"matmul_path", summary.matmulPath},
                   {"matmul_probe", probeToJson(host.matmul)},
                   {"compiled_step", in.config->compile ? planToJson(host.plan) : nlohmann::json()},
                   {"recompute",
                    {{"requested", toString(recompute.requested)},
                     {"policy", summary.recompute},
                     {"reason", recompute.reason},
                     {"predicted_peak_bytes", recompute.predictedPeakBytes},
                     {"time_overhead_ratio", recompute.timeOverheadRatio}}},
                   {"peak_bytes", host.allocator->peakBytes()},
                   {"run_dir", summary.runDir.string()}});
  return summary;
}

/// Every rank's outcome: gathered when all of them finished the same steps;
/// otherwise, or when gathering failed, this rank's own.
void recordRankOutcomes(Communicator& group, RunSummary& summary) {
  const bool together =
      summary.state == RunState::Completed || summary.state == RunState::Interrupted;
  try {
    if (together) gatherRanks(group, summary);
  } catch (const CollectiveError& error) {
    summary.state = RunState::Failed;
    summary.message = error.what();
    summary.ranks.clear();
  }
  if (summary.ranks.empty()) {
    summary.ranks.push_back({.rank = summary.rank,
                             .state = summary.state,
                             .peakBytes = summary.peakBytes,
                             .message = summary.message});
  }
}

/// The figures of the steps that ran: step time, tokens/s, MFU, first and
/// last loss.
void summariseSteps(const std::vector<StepRecord>& records, RunSummary& summary) {
  // The median step time, robust to a slow first step or a hiccup, over the
  // mean tokens of a step (they differ only under --seq-min/--seq-max), so
  // that tokens/s x step time is a step's tokens, as the benchmark reads it.
  std::vector<double> seconds;
  double tokens = 0.0;
  for (const StepRecord& record : records) {
    seconds.push_back(record.seconds);
    tokens += static_cast<double>(record.tokens);
  }
  summary.stepTimeSeconds = tb::median(seconds);
  if (summary.stepTimeSeconds > 0.0) {
    summary.tokensPerSecond =
        tokens / static_cast<double>(records.size()) / summary.stepTimeSeconds;
  }
  // Tokens/s are the group's, so the peak is too: every rank probes the same
  // threads on its own cores, and rank 0's rate stands for each of them.
  if (summary.matmulGflops > 0.0) {
    summary.mfu = summary.tokensPerSecond * summary.flopsPerToken /
                  (summary.matmulGflops * 1e9 * summary.worldSize);
  }
  if (!summary.losses.empty()) {
    summary.lossFirst = summary.losses.front();
    summary.lossLast = summary.losses.back();
  }
}

/// The run's end on disk: a note if events were lost, the error and end
/// events, then summary.json.
Status recordEnd(runs::RunEventLog& events, const runs::RunDirectory& directory,
                 RunSummary& summary) {
  if (!events.writeError().empty() && summary.message.empty()) {
    summary.message = "events were not all written: " + events.writeError();
  }
  if (summary.state != RunState::Completed) events.emitError(summary.state, summary.message);
  events.emitEnd(summary);
  return directory.writeSummary(summary);
}

}  // namespace

Expected<std::string> explainCompiledStep(const RunConfig& config) {
  if (const Status valid = checkRun(config); !valid) return valid.error();
  return explain(planCompiledStep(config));
}

bool cudaAvailable() { return at::hasCUDA() && at::getNumGPUs() > 0; }

Expected<RunSummary> runTraining(const RunConfig& config) {
  auto checked = checkAndLoad(config);
  if (!checked) return checked.error();
  auto group = joinGroup(config);
  if (!group) return group.error();
  Communicator* const communicator = group->get();
  auto directory = openRunDirectory(config, communicator);
  if (!directory) return directory.error();

  const HostSetup host = setUpHost(config);
  const runs::RunConfigRecord configRecordWritten = configRecord(config, host.threads);
  if (const Status written = directory->writeConfig(configRecordWritten); !written) {
    return written.error();
  }
  const std::unique_ptr<DecoderOps> ops = stepOps(config, host.plan, *host.matmul.path);
  runs::RunEventLog events(*directory, config.events);
  const LoopInputs inputs{
      .config = &config,
      .data = &checked->data,
      .resume = checked->resume ? &*checked->resume : nullptr,
      .directory = &*directory,
      .events = &events,
      .ops = ops.get(),
      .fusedUpdate =
          config.compile && config.runtime.flatGradients && host.plan.fuses("adamw+clip"),
      .recompute = checked->recompute.policy,
      .communicator = communicator,
      .bucketBytes = config.dataParallel
                         ? static_cast<std::int64_t>(config.dataParallel->bucketMiB * 1024 * 1024)
                         : 0,
      .zeroStage = config.dataParallel ? config.dataParallel->zeroStage : 0};

  RunSummary summary = announceStart(inputs, host, checked->recompute, configRecordWritten);
  std::vector<StepRecord> records;
  host.allocator->setBudget(config.memoryBudgetBytes);
  runTrainingLoop(inputs, summary, records);
  host.allocator->setBudget(0);
  if (communicator != nullptr) recordRankOutcomes(*communicator, summary);
  summariseSteps(records, summary);
  if (const Status written = recordEnd(events, *directory, summary); !written) {
    return written.error();
  }
  return summary;
}

}  // namespace tb::engine
