// One step is: forward and loss, backward, clip the gradient norm to 1.0,
// AdamW, reset the gradients. With the tuned runtime's lazy sync the loss and
// gradient norm stay tensors and are read back every logEvery steps (and at
// the end), when that interval's step events are written; the stock runtime
// reads them back every step. Failures become a status, not an exception: an
// out-of-memory refusal is `oom`, a stop request `interrupted`, anything else
// `failed`, and the events so far stay on disk.
//
// Under data parallelism (a Communicator) the step adds what DDP adds: the
// weights broadcast from rank 0 at the start, the gradients averaged over
// the ranks in buckets that travel while backward runs (gradient_sync.hpp),
// and two agreements: whether to stop (every rank stops before the same step,
// or the ones that go on would wait on the ones that left; StopVote), and
// the reported loss, the mean over the ranks, summed once per read-back
// interval.
#include "training/training_loop.hpp"

#include <ATen/ATen.h>
#include <time.h>

#include <chrono>
#include <memory>
#include <optional>
#include <utility>

#include "distributed/gradient_sync.hpp"
#include "model/decoder.hpp"
#include "runtime/flat_parameters.hpp"
#include "runtime/parameter_update.hpp"
#include "runtime/torch_compat.hpp"
#include "runtime/tracking_allocator.hpp"

namespace tb::engine {
namespace {

/// CPU seconds of every thread of this process so far: the intra-op pool,
/// BLAS, and c10d's communication threads, whose work a wall clock hides.
double processCpuSeconds() {
  timespec now{};
  if (::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) != 0) return 0.0;
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

constexpr double kMaxGradNorm = 1.0;
constexpr std::size_t kHeldOutBatches = 8;

struct Memory {
  std::uint64_t live = 0;
  std::uint64_t peak = 0;
};

Memory memoryNow(const c10::Device& device) {
  if (device.is_cuda()) {
    const auto cuda = compat::cudaMemory(device.index());
    return {cuda.liveBytes, cuda.peakBytes};
  }
  const auto& allocator = TrackingCpuAllocator::install();
  return {allocator.liveBytes(), allocator.peakBytes()};
}

at::Tensor toRows(const std::vector<std::int64_t>& tokens, std::int64_t rowLength,
                  const c10::Device& device) {
  return at::tensor(tokens, at::kLong).reshape({-1, rowLength}).to(device);
}

double heldOutLoss(const Decoder& decoder, const TokenBatches& data, std::int64_t rowLength,
                   const c10::Device& device) {
  at::NoGradGuard noGrad;
  double weighted = 0.0;
  double rows = 0.0;
  for (const auto& batch : data.heldOutBatches(kHeldOutBatches)) {
    const at::Tensor tokens = toRows(batch, rowLength, device);
    const auto count = static_cast<double>(tokens.size(0));
    weighted += decoder.loss(tokens).item<double>() * count;
    rows += count;
  }
  return rows > 0.0 ? weighted / rows : 0.0;
}

void restore(const Checkpoint& checkpoint, ParameterUpdate& update) {
  at::NoGradGuard noGrad;
  for (const auto& parameter : update.parameters()) {
    const at::Tensor saved = findTensor(checkpoint, parameter.name);
    if (!saved.defined() || !saved.sizes().equals(parameter.tensor.sizes())) {
      throw std::runtime_error("checkpoint has no matching tensor " + parameter.name);
    }
    parameter.tensor.copy_(saved);
  }
  update.restore(checkpoint.tensors, checkpoint.step);
}

/// A finished step whose loss and gradient norm have not been read back yet.
/// On the CPU every op has completed when the step's clock stops, so its time
/// is exact; on a GPU it would be the time to queue the step's kernels, and the
/// queue drains at the read-back, which the interval's last step then absorbs.
struct PendingStep {
  std::int64_t step = 0;
  std::int64_t seq = 0;
  at::Tensor loss;
  at::Tensor gradNorm;
  StepRecord record;
  Memory memory;
};

/// Reads back the pending steps and writes their events, oldest first.
class StepReporter {
 public:
  StepReporter(runs::RunEventLog& events, RunSummary& summary, double learningRate,
               Communicator* communicator)
      : events_(&events),
        summary_(&summary),
        learningRate_(learningRate),
        communicator_(communicator) {}

  void add(PendingStep step) { pending_.push_back(std::move(step)); }

  /// `global`: the losses are averaged over the ranks first (every rank must
  /// flush at the same steps then); after a failure they are this rank's own.
  void flush(bool global = true) {
    at::Tensor losses;
    if (!pending_.empty()) {
      std::vector<at::Tensor> each;
      for (const PendingStep& step : pending_) each.push_back(step.loss.to(at::kFloat).reshape({}));
      losses = at::stack(each).to(at::kCPU).contiguous();
      if (global && communicator_ != nullptr && communicator_->worldSize() > 1) {
        communicator_
            ->allReduceSum(losses, "all-reduce of the losses up to step " +
                                       std::to_string(pending_.back().step))
            ->wait();
        losses.div_(communicator_->worldSize());
      }
    }
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      const PendingStep& step = pending_[i];
      const double loss = losses[static_cast<std::int64_t>(i)].item<double>();
      const double gradNorm = step.gradNorm.defined() ? step.gradNorm.item<double>() : 0.0;
      summary_->losses.push_back(loss);
      const double seconds = step.record.seconds;
      runs::StepSample sample;
      sample.step = step.step;
      sample.loss = loss;
      sample.seq = step.seq;
      sample.stepTimeSeconds = seconds;
      sample.tokensPerSecond = static_cast<double>(step.record.tokens) / seconds;
      sample.liveBytes = step.memory.live;
      sample.peakBytes = step.memory.peak;
      sample.gradNorm = gradNorm;
      sample.learningRate = learningRate_;
      sample.commWaitSeconds = step.record.commWaitSeconds;
      sample.cpuSeconds = step.record.cpuSeconds;
      events_->emitStep(sample);
    }
    pending_.clear();
  }

  /// After a failure: report what can still be read, never throw.
  void flushQuietly() noexcept {
    try {
      flush(false);
    } catch (...) {  // NOLINT(bugprone-empty-catch): the failure is already being reported
      pending_.clear();
    }
  }

 private:
  runs::RunEventLog* events_;
  RunSummary* summary_;
  double learningRate_;
  Communicator* communicator_;
  std::vector<PendingStep> pending_;
};

/// Whether any rank was asked to stop, agreed a step late so that nobody
/// waits for it: each step starts a vote (a one-element all-reduce) that
/// travels while the step computes, and the next step reads it. Every rank
/// reads the same sum, so all stop before the same step, none in a vote.
class StopVote {
 public:
  explicit StopVote(Communicator& communicator) : communicator_(&communicator) {}

  /// Reads the vote started a step ago; if nobody asked to stop, starts the
  /// next one with this rank's wish.
  bool agreedBefore(std::int64_t step, bool stopHere) {
    if (pending_) {
      pending_->wait();
      pending_.reset();
      if (flag_.item<float>() > 0.0F) return true;
    }
    flag_ = at::full({1}, stopHere ? 1.0F : 0.0F, at::kFloat);
    pending_ = communicator_->allReduceSum(flag_, "the stop vote of step " + std::to_string(step));
    return false;
  }

  /// After the last step: the vote still in flight ends before anything else.
  void finish() {
    if (pending_) pending_->wait();
    pending_.reset();
  }

 private:
  Communicator* communicator_;
  at::Tensor flag_;
  std::unique_ptr<PendingCollective> pending_;
};

/// ZeRO-1: this rank's shard of the moments, and the all-gather after it.
UpdateShard updateShard(const LoopInputs& in) {
  if (in.zeroStage == 0 || in.communicator == nullptr || in.communicator->worldSize() == 1) {
    return {};
  }
  Communicator* communicator = in.communicator;
  return {.index = communicator->rank(),
          .count = communicator->worldSize(),
          .gather = [communicator](at::Tensor padded, const std::string& what) {
            communicator->allGather(std::move(padded), what);
          }};
}

/// Every rank starts from rank 0's weights, as DDP's construction does.
void broadcastWeights(Communicator& communicator, const ParameterUpdate& update) {
  at::NoGradGuard noGrad;
  if (const at::Tensor values = update.valueBuffer(); values.defined()) {
    communicator.broadcast(values, 0, "broadcast of the weights from rank 0");
    return;
  }
  for (const NamedTensor& parameter : update.parameters()) {
    communicator.broadcast(parameter.tensor.detach(), 0,
                           "broadcast of " + parameter.name + " from rank 0");
  }
}

/// What stays fixed over a run's steps: where it computes, the rows it cuts,
/// how often it reads back, the first step and the world size.
struct LoopSettings {
  c10::Device device;
  at::ScalarType computeType;
  std::int64_t rowLength;
  std::int64_t shortest;
  std::int64_t longest;
  std::int64_t syncEvery;
  std::int64_t firstStep;
  std::int64_t ranks;
};

LoopSettings loopSettingsFor(const LoopInputs& in) {
  const RunConfig& config = *in.config;
  const ModelConfig& model = config.model;
  const c10::Device device = config.device == Device::Cuda ? c10::Device(c10::DeviceType::CUDA, 0)
                                                           : c10::Device(c10::DeviceType::CPU);
  return {.device = device,
          .computeType = device.is_cuda() ? at::kBFloat16 : at::kFloat,
          .rowLength = model.seq + 1,
          .shortest = config.seqMin != 0 ? config.seqMin : model.seq,
          .longest = config.seqMax != 0 ? config.seqMax : model.seq,
          .syncEvery = config.runtime.lazySync ? config.logEvery : 1,
          .firstStep = in.resume != nullptr ? in.resume->step + 1 : 1,
          .ranks = in.communicator != nullptr ? in.communicator->worldSize() : 1};
}

/// The model a run trains: the update that owns its parameters, the decoder,
/// and under data parallelism the gradient sync and the stop vote.
struct TrainedModel {
  std::unique_ptr<ParameterUpdate> update;
  Decoder decoder;
  std::unique_ptr<GradientSync> sync;
  std::optional<StopVote> vote;
};

/// The model on fresh weights, or the checkpoint's on a resume, with its
/// recompute policy; under data parallelism every rank starts from rank 0's
/// weights and its gradients are synced.
TrainedModel buildModel(const LoopInputs& in, const LoopSettings& loop) {
  const RunConfig& config = *in.config;
  const ModelConfig& model = config.model;
  DecoderWeights weights = initialiseWeights(model, config.seed, loop.device);
  std::unique_ptr<ParameterUpdate> update;
  if (config.runtime.flatGradients) {
    update =
        std::make_unique<FlatParameters>(weights, AdamWOptions{}, in.fusedUpdate, updateShard(in));
  } else {
    update = perTensorUpdate(namedParameters(weights));
  }
  TrainedModel trained{.update = std::move(update),
                       .decoder = Decoder(model, std::move(weights), *in.ops, loop.computeType),
                       .sync = nullptr,
                       .vote = std::nullopt};
  trained.decoder.setRecompute(in.recompute);
  if (in.resume != nullptr) restore(*in.resume, *trained.update);
  if (in.communicator != nullptr) {
    trained.vote.emplace(*in.communicator);
    broadcastWeights(*in.communicator, *trained.update);
    // Definition order (namedParameters), which backward runs in reverse.
    trained.sync = std::make_unique<GradientSync>(
        *in.communicator, namedParameters(trained.decoder.weights()),
        trained.update->gradientBuffer(), in.bucketBytes, kEmbeddingParameter);
  }
  return trained;
}

/// What every step works with: the run's inputs and settings, the model it
/// trains, where its results go, and its part in checkpoints.
struct StepContext {
  const LoopInputs& in;
  const LoopSettings& loop;
  TrainedModel& trained;
  StepReporter& reporter;
  RunSummary& summary;
  std::vector<StepRecord>& records;
  bool writesCheckpoints;  ///< rank 0 (or the only process) writes the file
  bool savesCheckpoints;   ///< takes part in saving, if only by gathering the moments
};

/// The checkpoint after `step`: every saving rank takes part in reading the
/// moments (update.state(), gathered when sharded), the writer alone writes.
void saveStepCheckpoint(const StepContext& ctx, std::int64_t step) {
  const ParameterUpdate& update = *ctx.trained.update;
  std::vector<NamedTensor> state = update.state();
  if (!ctx.writesCheckpoints) return;
  Checkpoint checkpoint{.step = step,
                        .seed = ctx.in.config->seed,
                        .model = ctx.in.config->model,
                        .tensors = update.parameters()};
  for (auto& entry : state) checkpoint.tensors.push_back(std::move(entry));
  if (const Status saved = saveCheckpoint(ctx.in.directory->checkpointFile(), checkpoint); !saved) {
    throw std::runtime_error(saved.error().message);
  }
}

/// A stop before `step`: the steps so far are reported and, where the run
/// saves checkpoints and trained a step, saved.
void stopBeforeStep(const StepContext& ctx, std::int64_t step) {
  const RunConfig& config = *ctx.in.config;
  ctx.reporter.flush();
  ctx.summary.state = RunState::Interrupted;
  ctx.summary.message = "stopped by a signal before step " + std::to_string(step);
  if (config.saveEvery > 0 && ctx.summary.steps >= ctx.loop.firstStep && ctx.savesCheckpoints) {
    saveStepCheckpoint(ctx, ctx.summary.steps);
  }
}

/// Forward and loss of `rows`, then backward; under data parallelism the
/// gradients' buckets start travelling while backward runs.
at::Tensor lossAndGradients(const StepContext& ctx, std::int64_t step, const at::Tensor& rows) {
  const std::unique_ptr<GradientSync>& sync = ctx.trained.sync;
  // Before forward, so that agreeing on the embedding rows overlaps it.
  if (sync) sync->beginStep(step, Decoder::inputs(rows));
  at::Tensor loss = ctx.trained.decoder.loss(rows);
  if (sync) {
    // The mean over the ranks is taken at the seed: each rank's
    // gradients come out already divided by the world size, so the
    // summed buckets need no pass of their own (exact for 1, 2, 4, ...).
    loss.backward(at::full({}, 1.0 / static_cast<double>(ctx.loop.ranks), loss.options()));
  } else {
    loss.backward();
  }
  return loss;
}

/// One step, from the stop agreement to its checkpoint; false when the run
/// stops before it.
bool runStep(const StepContext& ctx, std::int64_t step) {
  const RunConfig& config = *ctx.in.config;
  const LoopSettings& loop = ctx.loop;
  TrainedModel& trained = ctx.trained;
  const auto start = std::chrono::steady_clock::now();
  const double cpuAtStart = processCpuSeconds();
  bool stop = config.stop.stopRequested();
  if (trained.vote) stop = trained.vote->agreedBefore(step, stop);
  const std::chrono::duration<double> agreeing = std::chrono::steady_clock::now() - start;
  if (stop) {
    stopBeforeStep(ctx, step);
    return false;
  }
  const std::int64_t seq = stepSequenceLength(config.seed, step, loop.shortest, loop.longest);
  const at::Tensor rows =
      toRows(ctx.in.data->trainBatch(step), loop.rowLength, loop.device).narrow(1, 0, seq + 1);
  const at::Tensor loss = lossAndGradients(ctx, step, rows);
  const auto backwardDone = std::chrono::steady_clock::now();
  if (trained.sync) trained.sync->finish();
  const std::chrono::duration<double> waiting = std::chrono::steady_clock::now() - backwardDone;
  at::Tensor gradNorm = trained.update->clipAndStep(kMaxGradNorm);
  trained.update->zeroGrad();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;

  ctx.summary.steps = step;
  StepRecord record{.seconds = elapsed.count(),
                    .tokens = rows.size(0) * seq * loop.ranks,
                    .commWaitSeconds = std::nullopt,
                    .cpuSeconds = processCpuSeconds() - cpuAtStart};
  if (trained.sync) record.commWaitSeconds = agreeing.count() + waiting.count();
  ctx.records.push_back(record);
  ctx.reporter.add({.step = step,
                    .seq = seq,
                    .loss = loss.detach(),
                    .gradNorm = std::move(gradNorm),
                    .record = record,
                    .memory = memoryNow(loop.device)});
  if ((step - loop.firstStep + 1) % loop.syncEvery == 0 || step == config.steps) {
    ctx.reporter.flush();
  }
  if (config.saveEvery > 0 && step % config.saveEvery == 0 && ctx.savesCheckpoints) {
    saveStepCheckpoint(ctx, step);
  }
  return true;
}

/// Builds the model, runs the steps and, after a run that completed on data
/// with a held-out split, measures the held-out loss. Throws what failed.
void trainAndEvaluate(const LoopInputs& in, const LoopSettings& loop, StepReporter& reporter,
                      RunSummary& summary, std::vector<StepRecord>& records) {
  TrainedModel trained = buildModel(in, loop);
  // The weights are the same on every rank: rank 0 alone saves them. With
  // sharded moments every rank takes part in gathering them first.
  const bool writesCheckpoints = in.communicator == nullptr || in.communicator->rank() == 0;
  const StepContext ctx{.in = in,
                        .loop = loop,
                        .trained = trained,
                        .reporter = reporter,
                        .summary = summary,
                        .records = records,
                        .writesCheckpoints = writesCheckpoints,
                        .savesCheckpoints = writesCheckpoints || in.zeroStage > 0};
  summary.state = RunState::Completed;
  for (std::int64_t step = loop.firstStep; step <= in.config->steps; ++step) {
    if (!runStep(ctx, step)) break;
  }
  if (trained.vote) trained.vote->finish();
  if (summary.state == RunState::Completed && in.data->hasHeldOut()) {
    summary.heldOutLoss = heldOutLoss(trained.decoder, *in.data, loop.rowLength, loop.device);
  }
}

}  // namespace

void runTrainingLoop(const LoopInputs& in, RunSummary& summary, std::vector<StepRecord>& records) {
  const LoopSettings loop = loopSettingsFor(in);
  auto& allocator = TrackingCpuAllocator::install();
  const std::uint64_t refusalsBefore = allocator.refusals();
  summary.firstStep = loop.firstStep;
  summary.steps = loop.firstStep - 1;
  StepReporter reporter(*in.events, summary, AdamWOptions{}.learningRate, in.communicator);

  try {
    trainAndEvaluate(in, loop, reporter, summary, records);
  } catch (const CollectiveError& error) {
    reporter.flushQuietly();
    summary.state = RunState::Failed;
    summary.message = error.what();
  } catch (const MemoryBudgetExceeded& refusal) {
    reporter.flushQuietly();
    summary.state = RunState::Oom;
    summary.message = refusal.what();
  } catch (const std::exception& error) {
    reporter.flushQuietly();
    // A refusal inside a LibTorch worker may come back wrapped in c10::Error.
    if (allocator.refusals() != refusalsBefore) {
      summary.state = RunState::Oom;
      summary.message = allocator.lastRefusal().what();
    } else {
      summary.state = RunState::Failed;
      const auto* torchError = dynamic_cast<const c10::Error*>(&error);
      summary.message = torchError != nullptr ? torchError->what_without_backtrace() : error.what();
    }
  }
  // A rank that failed starts no further collective and leaves the ones in
  // flight to the process's exit (communicator.hpp).
  if (in.communicator != nullptr && summary.state != RunState::Completed &&
      summary.state != RunState::Interrupted) {
    in.communicator->abort();
  }
  summary.peakBytes = memoryNow(loop.device).peak;
}

}  // namespace tb::engine
