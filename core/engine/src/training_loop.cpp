// One step is: forward and loss, backward, clip the gradient norm to 1.0,
// AdamW, drop the gradients. The loss is read back every step (a host sync),
// which the tuned runtime of a later stage will relax. Failures become a
// status, not an exception: an out-of-memory refusal is `oom`, a stop request
// `interrupted`, anything else `failed`, and the events so far stay on disk.
#include "training_loop.hpp"

#include <ATen/ATen.h>

#include <chrono>
#include <utility>

#include "adamw.hpp"
#include "decoder.hpp"
#include "decoder_ops.hpp"
#include "torch_compat.hpp"
#include "tracking_allocator.hpp"

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

void restore(const Checkpoint& checkpoint, const std::vector<NamedTensor>& parameters,
             AdamW& optimizer) {
  at::NoGradGuard noGrad;
  for (const auto& parameter : parameters) {
    const at::Tensor saved = findTensor(checkpoint, parameter.name);
    if (!saved.defined() || !saved.sizes().equals(parameter.tensor.sizes())) {
      throw std::runtime_error("checkpoint has no matching tensor " + parameter.name);
    }
    parameter.tensor.copy_(saved);
  }
  optimizer.restore(checkpoint.tensors, checkpoint.step);
}

}  // namespace

void runTrainingLoop(const LoopInputs& in, RunSummary& summary, std::vector<double>& stepSeconds) {
  const RunConfig& config = *in.config;
  const ModelConfig& model = config.model;
  const c10::Device device = config.device == Device::Cuda ? c10::Device(c10::DeviceType::CUDA, 0)
                                                           : c10::Device(c10::DeviceType::CPU);
  const at::ScalarType computeType = device.is_cuda() ? at::kBFloat16 : at::kFloat;
  const std::int64_t rowLength = model.seq + 1;
  const double tokensPerStep = static_cast<double>(model.batch * model.seq);
  auto& allocator = TrackingCpuAllocator::install();
  const std::uint64_t refusalsBefore = allocator.refusals();
  const std::int64_t firstStep = in.resume != nullptr ? in.resume->step + 1 : 1;
  summary.firstStep = firstStep;
  summary.steps = firstStep - 1;

  try {
    Decoder decoder(model, initialiseWeights(model, config.seed, device), referenceOps(),
                    computeType);
    decoder.setRecompute(recomputeLayout(in.recompute, model.layers));
    const std::vector<NamedTensor> parameters = namedParameters(decoder.weights());
    AdamW optimizer(parameters);
    if (in.resume != nullptr) restore(*in.resume, parameters, optimizer);

    const auto save = [&](std::int64_t step) {
      Checkpoint checkpoint{step, config.seed, model, parameters};
      for (auto& entry : optimizer.state()) checkpoint.tensors.push_back(std::move(entry));
      if (const Status saved = saveCheckpoint(in.directory->checkpointFile(), checkpoint); !saved) {
        throw std::runtime_error(saved.error().message);
      }
    };

    summary.status = RunStatus::Completed;
    for (std::int64_t step = firstStep; step <= config.steps; ++step) {
      if (config.stopRequested != nullptr && config.stopRequested->load()) {
        summary.status = RunStatus::Interrupted;
        summary.message = "stopped by a signal before step " + std::to_string(step);
        if (config.saveEvery > 0 && summary.steps >= firstStep) save(summary.steps);
        break;
      }
      const auto start = std::chrono::steady_clock::now();
      const at::Tensor rows = toRows(in.data->trainBatch(step), rowLength, device);
      const at::Tensor loss = decoder.loss(rows);
      loss.backward();
      const double gradNorm = clipGradientNorm(parameters, kMaxGradNorm);
      optimizer.step();
      optimizer.zeroGrad();
      const double lossValue = loss.item<double>();
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;

      summary.steps = step;
      summary.losses.push_back(lossValue);
      stepSeconds.push_back(elapsed.count());
      const Memory memory = memoryNow(device);
      in.events->emit("step", {{"step", step},
                               {"loss", lossValue},
                               {"step_time_s", elapsed.count()},
                               {"tokens_per_s", tokensPerStep / elapsed.count()},
                               {"live_bytes", memory.live},
                               {"peak_bytes", memory.peak},
                               {"grad_norm", gradNorm},
                               {"lr", optimizer.options().learningRate}});
      if (config.saveEvery > 0 && step % config.saveEvery == 0) save(step);
    }
    if (summary.status == RunStatus::Completed && in.data->hasHeldOut()) {
      summary.heldOutLoss = heldOutLoss(decoder, *in.data, rowLength, device);
    }
  } catch (const MemoryBudgetExceeded& refusal) {
    summary.status = RunStatus::Oom;
    summary.message = refusal.what();
  } catch (const std::exception& error) {
    // A refusal inside a LibTorch worker may come back wrapped in c10::Error.
    if (allocator.refusals() != refusalsBefore) {
      summary.status = RunStatus::Oom;
      summary.message = allocator.lastRefusal().what();
    } else {
      summary.status = RunStatus::Failed;
      const auto* torchError = dynamic_cast<const c10::Error*>(&error);
      summary.message = torchError != nullptr ? torchError->what_without_backtrace() : error.what();
    }
  }
  summary.peakBytes = memoryNow(device).peak;
}

}  // namespace tb::engine
