// NeMo's metric names, and the merging of one step's metrics into a record;
// see nemo_metrics.hpp.
#include "nemo_metrics.hpp"

#include <cmath>
#include <string>

namespace tb::logs::detail {
namespace {

constexpr NemoKeyInfo nemoKeyInfo(NemoKey key, int rank = 0, std::string_view memoryKind = {}) {
  return NemoKeyInfo{key, rank, memoryKind};
}

}  // namespace

bool NemoMetrics::hasTrainingValue() const {
  return loss || learningRate || gradNorm || stepTimeSeconds || tokensPerSecondPerGpu ||
         tflopsPerGpu || memoryBytes || globalBatch || consumedSamples;
}

NemoKeyInfo nemoKey(std::string_view name) {
  if (name == "step") return nemoKeyInfo(NemoKey::Step);
  if (name == "global_step") return nemoKeyInfo(NemoKey::GlobalStep);
  // NeMo logs reduced_train_loss; plain Lightning modules log train_loss,
  // or train_loss_step beside train_loss_epoch with on_step and on_epoch.
  if (name == "reduced_train_loss") return nemoKeyInfo(NemoKey::Loss, 0);
  if (name == "train_loss") return nemoKeyInfo(NemoKey::Loss, 1);
  if (name == "train_loss_step") return nemoKeyInfo(NemoKey::Loss, 2);
  if (name == "loss") return nemoKeyInfo(NemoKey::Loss, 3);
  if (name == "lr") return nemoKeyInfo(NemoKey::LearningRate, 0);
  if (name == "learning_rate") return nemoKeyInfo(NemoKey::LearningRate, 1);
  if (name.starts_with("lr-")) return nemoKeyInfo(NemoKey::LearningRate, 2);  // LearningRateMonitor
  if (name == "grad_norm" || name == "grad_2.0_norm_total") return nemoKeyInfo(NemoKey::GradNorm);
  if (name == "train_step_timing in s") return nemoKeyInfo(NemoKey::StepTime);
  if (name == "tokens_per_sec_per_gpu") return nemoKeyInfo(NemoKey::TokensPerGpu);
  if (name == "tflops_per_sec_per_gpu") return nemoKeyInfo(NemoKey::TflopsPerGpu);
  // torch.cuda.max_memory_reserved() / memory_allocated(), in bytes. NeMo 2's
  // MegatronStrategy(log_memory_usage=True) calls the peak "peak_memory_usage".
  if (name == "peak_memory_usage" || name == "max_memory_reserved") {
    return nemoKeyInfo(NemoKey::Memory, 0, "max_reserved");
  }
  if (name == "max_memory_allocated") return nemoKeyInfo(NemoKey::Memory, 1, "max_allocated");
  if (name == "memory_allocated") return nemoKeyInfo(NemoKey::Memory, 2, "allocated");
  if (name == "global_batch_size") return nemoKeyInfo(NemoKey::GlobalBatch);
  if (name == "consumed_samples") return nemoKeyInfo(NemoKey::ConsumedSamples);
  return {};
}

std::optional<std::int64_t> wholeCount(double value) {
  if (!std::isfinite(value) || value < 0 || value != std::floor(value) || value > 9.0e15) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(value);
}

bool setNemoMetric(const NemoKeyInfo& info, double value, NemoMetrics& metrics) {
  switch (info.key) {
    case NemoKey::Unknown: return true;
    case NemoKey::Step:
    case NemoKey::GlobalStep: {
      const auto count = wholeCount(value);
      if (!count) return false;
      (info.key == NemoKey::Step ? metrics.step : metrics.globalStep) = *count;
      return true;
    }
    case NemoKey::Loss:
      if (info.rank < metrics.lossRank) {
        metrics.loss = value;
        metrics.lossRank = info.rank;
      }
      return true;
    case NemoKey::LearningRate:
      if (info.rank < metrics.learningRateRank) {
        metrics.learningRate = value;
        metrics.learningRateRank = info.rank;
      }
      return true;
    case NemoKey::GradNorm: metrics.gradNorm = value; return true;
    case NemoKey::StepTime: metrics.stepTimeSeconds = value; return true;
    case NemoKey::TokensPerGpu: metrics.tokensPerSecondPerGpu = value; return true;
    case NemoKey::TflopsPerGpu: metrics.tflopsPerGpu = value; return true;
    case NemoKey::Memory:
      if (info.rank < metrics.memoryRank) {
        metrics.memoryBytes = value;
        metrics.memoryRank = info.rank;
        metrics.memoryKind = info.memoryKind;
      }
      return true;
    case NemoKey::GlobalBatch: metrics.globalBatch = value; return true;
    case NemoKey::ConsumedSamples: metrics.consumedSamples = value; return true;
  }
  return true;
}

void mergeNemoMetrics(NemoMetrics& into, const NemoMetrics& later) {
  const auto lay = [](auto& target, const auto& source) {
    if (source) target = source;
  };
  lay(into.step, later.step);
  lay(into.globalStep, later.globalStep);
  if (later.loss && later.lossRank <= into.lossRank) {
    into.loss = later.loss;
    into.lossRank = later.lossRank;
  }
  if (later.learningRate && later.learningRateRank <= into.learningRateRank) {
    into.learningRate = later.learningRate;
    into.learningRateRank = later.learningRateRank;
  }
  if (later.memoryBytes && later.memoryRank <= into.memoryRank) {
    into.memoryBytes = later.memoryBytes;
    into.memoryRank = later.memoryRank;
    into.memoryKind = later.memoryKind;
  }
  lay(into.gradNorm, later.gradNorm);
  lay(into.stepTimeSeconds, later.stepTimeSeconds);
  lay(into.tokensPerSecondPerGpu, later.tokensPerSecondPerGpu);
  lay(into.tflopsPerGpu, later.tflopsPerGpu);
  lay(into.globalBatch, later.globalBatch);
  lay(into.consumedSamples, later.consumedSamples);
}

runs::ImportedStep nemoStep(const NemoMetrics& metrics, std::int64_t step) {
  runs::ImportedStep record;
  record.step = step;
  record.loss = metrics.loss;
  record.learningRate = metrics.learningRate;
  record.gradNorm = metrics.gradNorm;
  record.stepTimeSeconds = metrics.stepTimeSeconds;
  if (metrics.tokensPerSecondPerGpu) {
    record.tokensPerSecond =
        runs::ScopedRate{*metrics.tokensPerSecondPerGpu, runs::RateScope::PerGpu};
  }
  record.tflopsPerGpu = metrics.tflopsPerGpu;
  record.memoryBytes = metrics.memoryBytes;
  if (metrics.globalBatch) {
    if (const auto batch = wholeCount(*metrics.globalBatch); batch && *batch > 0) {
      record.globalBatch = *batch;
      if (metrics.stepTimeSeconds && *metrics.stepTimeSeconds > 0) {
        record.samplesPerSecond = runs::ScopedRate{
            static_cast<double>(*batch) / *metrics.stepTimeSeconds, runs::RateScope::Job};
      }
    }
  }
  return record;
}

void NemoRunFacts::observe(const NemoMetrics& metrics, std::int64_t step) {
  if (metrics.globalBatch) {
    const auto batch = wholeCount(*metrics.globalBatch);
    if (!batch || (batch_ && *batch_ != *batch)) {
      batchVaries_ = true;
    } else {
      batch_ = batch;
    }
  }
  if (metrics.consumedSamples) {
    if (lastConsumed_ && step > lastConsumedStep_) {
      const double perStep = (*metrics.consumedSamples - *lastConsumed_) /
                             static_cast<double>(step - lastConsumedStep_);
      const auto batch = wholeCount(perStep);
      if (!batch || *batch == 0 || (consumedBatch_ && *consumedBatch_ != *batch)) {
        consumedVaries_ = true;
      } else {
        consumedBatch_ = batch;
      }
    }
    lastConsumed_ = metrics.consumedSamples;
    lastConsumedStep_ = step;
  }
  if (!metrics.memoryKind.empty()) {
    if (!memoryKind_.empty() && memoryKind_ != metrics.memoryKind) memoryKindMixed_ = true;
    memoryKind_ = metrics.memoryKind;
  }
}

void NemoRunFacts::finish(runs::ImportedRun& run) const {
  if (batch_ && !batchVaries_ && *batch_ > 0) {
    run.globalBatch = *batch_;
  } else if (!batchVaries_ && consumedBatch_ && !consumedVaries_) {
    run.globalBatch = *consumedBatch_;
  }
  if (!memoryKind_.empty()) run.memoryKind = memoryKindMixed_ ? "mixed" : std::string(memoryKind_);
}

void NemoRecords::add(const NemoMetrics& metrics, std::int64_t step, StepSink* sink) {
  if (pending_ && pendingStep_ == step) {
    mergeNemoMetrics(*pending_, metrics);
    return;
  }
  flush(sink);
  pending_ = metrics;
  pendingStep_ = step;
}

void NemoRecords::flush(StepSink* sink) {
  if (!pending_ || sink == nullptr) return;
  facts_.observe(*pending_, pendingStep_);
  sink->add(nemoStep(*pending_, pendingStep_));
  pending_.reset();
}

void NemoRecords::finish(runs::ImportedRun& run, StepSink* sink) {
  flush(sink);
  facts_.finish(run);
}

}  // namespace tb::logs::detail
