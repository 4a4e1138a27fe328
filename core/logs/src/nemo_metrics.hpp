// NeMo's metric names and what they mean, shared by the three places NeMo's
// numbers show up: Lightning's CSVLogger metrics.csv (lightning_csv.cpp),
// NeMo 2's console line and DLLogger's `DLLL {…}` lines (nemo.cpp). The names
// are the ones NeMo logs (nemo/utils/exp_manager.py TimingCallback,
// nemo/lightning/pytorch/strategies/megatron_strategy.py, the data sampler,
// FLOPsMeasurementCallback; docs/LOG_FORMATS.md), plus Lightning's own
// generic ones (train_loss, LearningRateMonitor's lr-<optimizer>).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "format_parser.hpp"
#include "tb/runs/imported_run.hpp"

namespace tb::logs::detail {

/// One logging call's metrics (one CSV row, one console line, one DLLL line).
struct NemoMetrics {
  std::optional<std::int64_t> step;        ///< Lightning's logger step
  std::optional<std::int64_t> globalStep;  ///< NeMo's own "global_step" metric
  std::optional<double> loss;
  std::optional<double> learningRate;
  std::optional<double> gradNorm;
  std::optional<double> stepTimeSeconds;  ///< "train_step_timing in s"
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
  [[nodiscard]] bool hasTrainingValue() const;
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

/// What a metric name means; Unknown for validation metrics (val_loss,
/// validation_step_timing in s), epoch, loss_scale and anything else.
NemoKeyInfo nemoKey(std::string_view name);

/// A number that is a whole, non-negative count (a step).
std::optional<std::int64_t> wholeCount(double value);

/// Puts `value` into `metrics` under what `info` says it is. Returns false
/// when a step is not a whole non-negative number (the caller's error).
bool setNemoMetric(const NemoKeyInfo& info, double value, NemoMetrics& metrics);

/// Lays a later logging call of the same step over an earlier one: what the
/// later one has wins, what it lacks is kept (Lightning writes one row per
/// log_metrics call, and LearningRateMonitor calls it apart from the rest).
void mergeNemoMetrics(NemoMetrics& into, const NemoMetrics& later);

/// The step record for `metrics` at `step`. tokens_per_sec_per_gpu and
/// tflops_per_sec_per_gpu are per GPU, as their names say; samples/s is the
/// job's: global_batch_size over train_step_timing in s of the same call (the
/// formula NVIDIA's NeMo benchmarking uses).
runs::ImportedStep nemoStep(const NemoMetrics& metrics, std::int64_t step);

/// Run-level facts gathered over a NeMo run's records: the global batch (when
/// it is the same throughout, or when consumed_samples grows by the same
/// whole number every step) and what the memory figure is.
class NemoRunFacts {
 public:
  void observe(const NemoMetrics& metrics, std::int64_t step);
  void finish(runs::ImportedRun& run) const;

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
  void add(const NemoMetrics& metrics, std::int64_t step, StepSink* sink);
  void flush(StepSink* sink);
  /// After the last record: flushes it and puts the run's facts into `run`.
  void finish(runs::ImportedRun& run, StepSink* sink);

 private:
  std::optional<NemoMetrics> pending_;
  std::int64_t pendingStep_ = 0;
  NemoRunFacts facts_;
};

}  // namespace tb::logs::detail
