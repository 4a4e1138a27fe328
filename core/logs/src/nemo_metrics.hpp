// NeMo's metric names and what they mean, shared by the three places NeMo's
// numbers show up: Lightning's CSVLogger metrics.csv (lightning_csv.cpp),
// NeMo 2's console line and DLLogger's `DLLL {…}` lines (nemo.cpp). The names
// are the ones NeMo logs (nemo/utils/exp_manager.py TimingCallback,
// nemo/lightning/pytorch/strategies/megatron_strategy.py, the data sampler,
// FLOPsMeasurementCallback; docs/LOG_FORMATS.md), plus Lightning's own
// generic ones (train_loss, LearningRateMonitor's lr-<optimizer>).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "format_parser.hpp"
#include "tb/runs/imported_run.hpp"

namespace tb::logs::detail {

/// One logging call's metrics (one CSV row, one console line, one DLLL line).
struct NemoMetrics {
  std::optional<std::int64_t> step;          ///< Lightning's logger step
  std::optional<std::int64_t> globalStep;    ///< NeMo's own "global_step" metric
  std::optional<double> loss;
  std::optional<double> learningRate;
  std::optional<double> gradNorm;
  std::optional<double> stepTimeSeconds;     ///< "train_step_timing in s"
  std::optional<double> tokensPerSecondPerGpu;
  std::optional<double> tflopsPerGpu;
  std::optional<double> memoryBytes;
  std::optional<double> globalBatch;
  std::optional<double> consumedSamples;
  // Where several names mean one thing, the lower rank wins.
  int lossRank = 99;
  int learningRateRank = 99;
  int memoryRank = 99;
  std::string_view memoryKind;

  /// Anything a training record carries (a row of validation metrics, or of
  /// only `epoch`, has none).
  [[nodiscard]] bool hasTrainingValue() const {
    return loss || learningRate || gradNorm || stepTimeSeconds || tokensPerSecondPerGpu ||
           tflopsPerGpu || memoryBytes || globalBatch || consumedSamples;
  }
};

enum class NemoKey : std::uint8_t {
  Unknown,
  Step,
  GlobalStep,
  Loss,
  LearningRate,
  GradNorm,
  StepTime,
  TokensPerGpu,
  TflopsPerGpu,
  Memory,
  GlobalBatch,
  ConsumedSamples,
};

struct NemoKeyInfo {
  NemoKey key = NemoKey::Unknown;
  int rank = 0;
  std::string_view memoryKind;
};

constexpr NemoKeyInfo keyInfo(NemoKey key, int rank = 0, std::string_view memoryKind = {}) {
  return NemoKeyInfo{key, rank, memoryKind};
}

/// What a metric name means; Unknown for validation metrics (val_loss,
/// validation_step_timing in s), epoch, loss_scale and anything else.
inline NemoKeyInfo nemoKey(std::string_view name) {
  if (name == "step") return keyInfo(NemoKey::Step);
  if (name == "global_step") return keyInfo(NemoKey::GlobalStep);
  // NeMo logs reduced_train_loss; plain Lightning modules log train_loss,
  // or train_loss_step beside train_loss_epoch with on_step and on_epoch.
  if (name == "reduced_train_loss") return keyInfo(NemoKey::Loss, 0);
  if (name == "train_loss") return keyInfo(NemoKey::Loss, 1);
  if (name == "train_loss_step") return keyInfo(NemoKey::Loss, 2);
  if (name == "loss") return keyInfo(NemoKey::Loss, 3);
  if (name == "lr") return keyInfo(NemoKey::LearningRate, 0);
  if (name == "learning_rate") return keyInfo(NemoKey::LearningRate, 1);
  if (name.starts_with("lr-")) return keyInfo(NemoKey::LearningRate, 2);  // LearningRateMonitor
  if (name == "grad_norm" || name == "grad_2.0_norm_total") return keyInfo(NemoKey::GradNorm);
  if (name == "train_step_timing in s") return keyInfo(NemoKey::StepTime);
  if (name == "tokens_per_sec_per_gpu") return keyInfo(NemoKey::TokensPerGpu);
  if (name == "tflops_per_sec_per_gpu") return keyInfo(NemoKey::TflopsPerGpu);
  // torch.cuda.max_memory_reserved() / memory_allocated(), in bytes. NeMo 2's
  // MegatronStrategy(log_memory_usage=True) calls the peak "peak_memory_usage".
  if (name == "peak_memory_usage" || name == "max_memory_reserved") {
    return keyInfo(NemoKey::Memory, 0, "max_reserved");
  }
  if (name == "max_memory_allocated") return keyInfo(NemoKey::Memory, 1, "max_allocated");
  if (name == "memory_allocated") return keyInfo(NemoKey::Memory, 2, "allocated");
  if (name == "global_batch_size") return keyInfo(NemoKey::GlobalBatch);
  if (name == "consumed_samples") return keyInfo(NemoKey::ConsumedSamples);
  return {};
}

/// A number that is a whole, non-negative count (a step).
inline std::optional<std::int64_t> wholeCount(double value) {
  if (!std::isfinite(value) || value < 0 || value != std::floor(value) || value > 9.0e15) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(value);
}

/// Puts `value` into `metrics` under what `info` says it is. Returns false
/// when a step is not a whole non-negative number (the caller's error).
inline bool setNemoMetric(const NemoKeyInfo& info, double value, NemoMetrics& metrics) {
  switch (info.key) {
    case NemoKey::Unknown:
      return true;
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
    case NemoKey::GradNorm:
      metrics.gradNorm = value;
      return true;
    case NemoKey::StepTime:
      metrics.stepTimeSeconds = value;
      return true;
    case NemoKey::TokensPerGpu:
      metrics.tokensPerSecondPerGpu = value;
      return true;
    case NemoKey::TflopsPerGpu:
      metrics.tflopsPerGpu = value;
      return true;
    case NemoKey::Memory:
      if (info.rank < metrics.memoryRank) {
        metrics.memoryBytes = value;
        metrics.memoryRank = info.rank;
        metrics.memoryKind = info.memoryKind;
      }
      return true;
    case NemoKey::GlobalBatch:
      metrics.globalBatch = value;
      return true;
    case NemoKey::ConsumedSamples:
      metrics.consumedSamples = value;
      return true;
  }
  return true;
}

/// Lays a later logging call of the same step over an earlier one: what the
/// later one has wins, what it lacks is kept (Lightning writes one row per
/// log_metrics call, and LearningRateMonitor calls it apart from the rest).
inline void mergeNemoMetrics(NemoMetrics& into, const NemoMetrics& later) {
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

/// The step record for `metrics` at `step`. tokens_per_sec_per_gpu and
/// tflops_per_sec_per_gpu are per GPU, as their names say; samples/s is the
/// job's: global_batch_size over train_step_timing in s of the same call (the
/// formula NVIDIA's NeMo benchmarking uses).
inline runs::ImportedStep nemoStep(const NemoMetrics& metrics, std::int64_t step) {
  runs::ImportedStep record;
  record.step = step;
  record.loss = metrics.loss;
  record.learningRate = metrics.learningRate;
  record.gradNorm = metrics.gradNorm;
  record.stepTimeSeconds = metrics.stepTimeSeconds;
  if (metrics.tokensPerSecondPerGpu) {
    record.tokensPerSecond = runs::ScopedRate{*metrics.tokensPerSecondPerGpu, runs::RateScope::PerGpu};
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

/// Run-level facts gathered over a NeMo run's records: the global batch (when
/// it is the same throughout, or when consumed_samples grows by the same
/// whole number every step) and what the memory figure is.
class NemoRunFacts {
 public:
  void observe(const NemoMetrics& metrics, std::int64_t step) {
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
        const double perStep =
            (*metrics.consumedSamples - *lastConsumed_) / static_cast<double>(step - lastConsumedStep_);
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

  void finish(runs::ImportedRun& run) const {
    if (batch_ && !batchVaries_ && *batch_ > 0) {
      run.globalBatch = *batch_;
    } else if (!batchVaries_ && consumedBatch_ && !consumedVaries_) {
      run.globalBatch = *consumedBatch_;
    }
    if (!memoryKind_.empty()) run.memoryKind = memoryKindMixed_ ? "mixed" : std::string(memoryKind_);
  }

 private:
  std::optional<std::int64_t> batch_;
  bool batchVaries_ = false;
  std::optional<double> lastConsumed_;
  std::int64_t lastConsumedStep_ = 0;
  std::optional<std::int64_t> consumedBatch_;
  bool consumedVaries_ = false;
  std::string_view memoryKind_;
  bool memoryKindMixed_ = false;
};

/// NeMo's records of one step arrive apart (LearningRateMonitor and the
/// module log separately, as rows of metrics.csv or console / DLLogger
/// lines): they merge into one record, handed on when a later step starts
/// or at the end, and the run's facts are learnt from the merged records.
class NemoRecords {
 public:
  void add(const NemoMetrics& metrics, std::int64_t step, StepSink* sink) {
    if (pending_ && pendingStep_ == step) {
      mergeNemoMetrics(*pending_, metrics);
      return;
    }
    flush(sink);
    pending_ = metrics;
    pendingStep_ = step;
  }

  void flush(StepSink* sink) {
    if (!pending_ || sink == nullptr) return;
    facts_.observe(*pending_, pendingStep_);
    sink->add(nemoStep(*pending_, pendingStep_));
    pending_.reset();
  }

  /// After the last record: flushes it and puts the run's facts into `run`.
  void finish(runs::ImportedRun& run, StepSink* sink) {
    flush(sink);
    facts_.finish(run);
  }

 private:
  std::optional<NemoMetrics> pending_;
  std::int64_t pendingStep_ = 0;
  NemoRunFacts facts_;
};

}  // namespace tb::logs::detail
