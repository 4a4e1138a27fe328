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
        communicator_->allReduceSum(losses, "all-reduce of the losses up to step " +
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
  return {communicator->rank(), communicator->worldSize(),
          [communicator](at::Tensor padded, const std::string& what) {
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
}  // namespace

void runTrainingLoop(const LoopInputs& in, RunSummary& summary, std::vector<StepRecord>& records) {
  const RunConfig& config = *in.config;
  const ModelConfig& model = config.model;
  const c10::Device device = config.device == Device::Cuda ? c10::Device(c10::DeviceType::CUDA, 0)
                                                           : c10::Device(c10::DeviceType::CPU);
  const at::ScalarType computeType = device.is_cuda() ? at::kBFloat16 : at::kFloat;
  const std::int64_t rowLength = model.seq + 1;
  const std::int64_t shortest = config.seqMin != 0 ? config.seqMin : model.seq;
  const std::int64_t longest = config.seqMax != 0 ? config.seqMax : model.seq;
  const std::int64_t syncEvery = config.runtime.lazySync ? config.logEvery : 1;
  auto& allocator = TrackingCpuAllocator::install();
  const std::uint64_t refusalsBefore = allocator.refusals();
  const std::int64_t firstStep = in.resume != nullptr ? in.resume->step + 1 : 1;
  summary.firstStep = firstStep;
  summary.steps = firstStep - 1;
  StepReporter reporter(*in.events, summary, AdamWOptions{}.learningRate, in.communicator);
  const std::int64_t ranks = in.communicator != nullptr ? in.communicator->worldSize() : 1;

  try {
    DecoderWeights weights = initialiseWeights(model, config.seed, device);
    std::unique_ptr<ParameterUpdate> update;
    if (config.runtime.flatGradients) {
      update = std::make_unique<FlatParameters>(weights, AdamWOptions{}, in.fusedUpdate,
                                                updateShard(in));
    } else {
      update = perTensorUpdate(namedParameters(weights));
    }
    Decoder decoder(model, std::move(weights), *in.ops, computeType);
    decoder.setRecompute(in.recompute);
    if (in.resume != nullptr) restore(*in.resume, *update);
    std::unique_ptr<GradientSync> sync;
    std::optional<StopVote> vote;
    if (in.communicator != nullptr) {
      vote.emplace(*in.communicator);
      broadcastWeights(*in.communicator, *update);
      // Definition order (namedParameters), which backward runs in reverse.
      sync = std::make_unique<GradientSync>(*in.communicator, namedParameters(decoder.weights()),
                                            update->gradientBuffer(), in.bucketBytes,
                                            kEmbeddingParameter);
    }

    // The weights are the same on every rank: rank 0 alone saves them. With
    // sharded moments every rank takes part in gathering them first.
    const bool writesCheckpoints = in.communicator == nullptr || in.communicator->rank() == 0;
    const bool savesCheckpoints = writesCheckpoints || in.zeroStage > 0;
    const auto save = [&](std::int64_t step) {
      std::vector<NamedTensor> state = update->state();
      if (!writesCheckpoints) return;
      Checkpoint checkpoint{step, config.seed, model, update->parameters()};
      for (auto& entry : state) checkpoint.tensors.push_back(std::move(entry));
      if (const Status saved = saveCheckpoint(in.directory->checkpointFile(), checkpoint); !saved) {
        throw std::runtime_error(saved.error().message);
      }
    };
    summary.state = RunState::Completed;
    for (std::int64_t step = firstStep; step <= config.steps; ++step) {
      const auto start = std::chrono::steady_clock::now();
      const double cpuAtStart = processCpuSeconds();
      bool stop = config.stop.stopRequested();
      if (vote) stop = vote->agreedBefore(step, stop);
      const std::chrono::duration<double> agreeing = std::chrono::steady_clock::now() - start;
      if (stop) {
        reporter.flush();
        summary.state = RunState::Interrupted;
        summary.message = "stopped by a signal before step " + std::to_string(step);
        if (config.saveEvery > 0 && summary.steps >= firstStep && savesCheckpoints) {
          save(summary.steps);
        }
        break;
      }
      const std::int64_t seq = stepSequenceLength(config.seed, step, shortest, longest);
      const at::Tensor rows =
          toRows(in.data->trainBatch(step), rowLength, device).narrow(1, 0, seq + 1);
      // Before forward, so that agreeing on the embedding rows overlaps it.
      if (sync) sync->beginStep(step, Decoder::inputs(rows));
      const at::Tensor loss = decoder.loss(rows);
      if (sync) {
        // The mean over the ranks is taken at the seed: each rank's
        // gradients come out already divided by the world size, so the
        // summed buckets need no pass of their own (exact for 1, 2, 4, ...).
        loss.backward(at::full({}, 1.0 / static_cast<double>(ranks), loss.options()));
      } else {
        loss.backward();
      }
      const auto backwardDone = std::chrono::steady_clock::now();
      if (sync) sync->finish();
      const std::chrono::duration<double> waiting = std::chrono::steady_clock::now() - backwardDone;
      at::Tensor gradNorm = update->clipAndStep(kMaxGradNorm);
      update->zeroGrad();
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;

      summary.steps = step;
      StepRecord record{elapsed.count(), rows.size(0) * seq * ranks, std::nullopt,
                        processCpuSeconds() - cpuAtStart};
      if (sync) record.commWaitSeconds = agreeing.count() + waiting.count();
      records.push_back(record);
      reporter.add({step, seq, loss.detach(), std::move(gradNorm), record, memoryNow(device)});
      if ((step - firstStep + 1) % syncEvery == 0 || step == config.steps) reporter.flush();
      if (config.saveEvery > 0 && step % config.saveEvery == 0 && savesCheckpoints) save(step);
    }
    if (vote) vote->finish();
    if (summary.state == RunState::Completed && in.data->hasHeldOut()) {
      summary.heldOutLoss = heldOutLoss(decoder, *in.data, rowLength, device);
    }
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
  summary.peakBytes = memoryNow(device).peak;
}

}  // namespace tb::engine
