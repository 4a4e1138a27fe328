// One step is: forward and loss, backward, clip the gradient norm to 1.0,
// AdamW, reset the gradients. With the tuned runtime's lazy sync the loss and
// gradient norm stay tensors and are read back every logEvery steps (and at
// the end), when that interval's step events are written; the stock runtime
// reads them back every step. Failures become a status, not an exception: an
// out-of-memory refusal is `oom`, a stop request `interrupted`, anything else
// `failed`, and the events so far stay on disk.
#include "training/training_loop.hpp"

#include <ATen/ATen.h>

#include <chrono>
#include <memory>
#include <utility>

#include "model/decoder.hpp"
#include "runtime/flat_parameters.hpp"
#include "runtime/parameter_update.hpp"
#include "runtime/torch_compat.hpp"
#include "runtime/tracking_allocator.hpp"

namespace tb::engine {
namespace {

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
  StepReporter(runs::RunEventLog& events, RunSummary& summary, double learningRate)
      : events_(&events), summary_(&summary), learningRate_(learningRate) {}

  void add(PendingStep step) { pending_.push_back(std::move(step)); }

  void flush() {
    for (const PendingStep& step : pending_) {
      const double loss = step.loss.item<double>();
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
      events_->emitStep(sample);
    }
    pending_.clear();
  }

  /// After a failure: report what can still be read, never throw.
  void flushQuietly() noexcept {
    try {
      flush();
    } catch (...) {  // NOLINT(bugprone-empty-catch): the failure is already being reported
      pending_.clear();
    }
  }

 private:
  runs::RunEventLog* events_;
  RunSummary* summary_;
  double learningRate_;
  std::vector<PendingStep> pending_;
};

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
  StepReporter reporter(*in.events, summary, AdamWOptions{}.learningRate);

  try {
    DecoderWeights weights = initialiseWeights(model, config.seed, device);
    std::unique_ptr<ParameterUpdate> update;
    if (config.runtime.flatGradients) {
      update = std::make_unique<FlatParameters>(weights, AdamWOptions{}, in.fusedUpdate);
    } else {
      update = perTensorUpdate(namedParameters(weights));
    }
    Decoder decoder(model, std::move(weights), *in.ops, computeType);
    decoder.setRecompute(in.recompute);
    if (in.resume != nullptr) restore(*in.resume, *update);

    const auto save = [&](std::int64_t step) {
      Checkpoint checkpoint{step, config.seed, model, update->parameters()};
      for (auto& entry : update->state()) checkpoint.tensors.push_back(std::move(entry));
      if (const Status saved = saveCheckpoint(in.directory->checkpointFile(), checkpoint); !saved) {
        throw std::runtime_error(saved.error().message);
      }
    };

    summary.state = RunState::Completed;
    for (std::int64_t step = firstStep; step <= config.steps; ++step) {
      if (config.stop.stopRequested()) {
        reporter.flush();
        summary.state = RunState::Interrupted;
        summary.message = "stopped by a signal before step " + std::to_string(step);
        if (config.saveEvery > 0 && summary.steps >= firstStep) save(summary.steps);
        break;
      }
      const auto start = std::chrono::steady_clock::now();
      const std::int64_t seq = stepSequenceLength(config.seed, step, shortest, longest);
      const at::Tensor rows =
          toRows(in.data->trainBatch(step), rowLength, device).narrow(1, 0, seq + 1);
      const at::Tensor loss = decoder.loss(rows);
      loss.backward();
      at::Tensor gradNorm = update->clipAndStep(kMaxGradNorm);
      update->zeroGrad();
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;

      summary.steps = step;
      const StepRecord record{elapsed.count(), rows.size(0) * seq};
      records.push_back(record);
      reporter.add({step, seq, loss.detach(), std::move(gradNorm), record, memoryNow(device)});
      if ((step - firstStep + 1) % syncEvery == 0 || step == config.steps) reporter.flush();
      if (config.saveEvery > 0 && step % config.saveEvery == 0) save(step);
    }
    if (summary.state == RunState::Completed && in.data->hasHeldOut()) {
      summary.heldOutLoss = heldOutLoss(decoder, *in.data, rowLength, device);
    }
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
  summary.peakBytes = memoryNow(device).peak;
}

}  // namespace tb::engine
