// A training run another framework wrote (Hugging Face Trainer, Megatron-LM,
// DeepSpeed, torchtitan, NeMo/Lightning, MLPerf, TensorBoard), as core/logs
// reads it from that framework's own files. Each field's unit is fixed and in
// its name; where frameworks differ in what a rate counts (one GPU, or the
// whole job) the scope travels with the value, so nothing is normalised by a
// guess. The importer fills it, the ablation, the reports and the Studio read
// it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::runs {

/// What a rate counts: one GPU, or the whole job (every rank together).
enum class RateScope : std::uint8_t { PerGpu, Job };

struct ScopedRate {
  double value = 0.0;
  RateScope scope = RateScope::Job;

  friend bool operator==(const ScopedRate&, const ScopedRate&) = default;
};

/// One training record as the framework logged it: one optimizer step, or
/// one logging window that the framework averaged (Megatron's log_interval).
/// A value the record does not carry stays empty.
struct ImportedStep {
  std::int64_t step = 0;  ///< the framework's iteration / global step
  std::optional<double> loss;
  std::optional<double> learningRate;
  std::optional<double> gradNorm;
  std::optional<double> stepTimeSeconds;  ///< wall time of one optimizer step
  std::optional<ScopedRate> samplesPerSecond;
  std::optional<ScopedRate> tokensPerSecond;
  std::optional<double> tflopsPerGpu;  ///< achieved TFLOP/s per GPU
  std::optional<double> mfu;           ///< model FLOPs utilisation as a fraction (0.42, not 42)
  std::optional<double> memoryBytes;   ///< per-GPU memory the framework reports (see memoryKind)
  /// MLPerf's tracked_stats throughput, in the benchmark's own unit (GPT-3:
  /// tokens/s of the job; Llama 2 LoRA: samples/s): comparable only between
  /// runs of the same benchmark, so never converted into the rates above.
  std::optional<double> benchmarkThroughput;
  std::optional<std::int64_t> globalBatch;  ///< samples per step, where the record gives it
  bool skippedUpdate = false;  ///< the framework skipped this update (fp16 overflow, NaN)

  friend bool operator==(const ImportedStep&, const ImportedStep&) = default;
};

/// Time a file timed inside a summary's runtime that was not training (the
/// Trainer's in-loop evaluation, a callback's prediction pass), by kind.
struct ExcludedTime {
  std::string kind;          ///< the file's own name: "eval", "eval_squad", "predict"
  double seconds = 0.0;      ///< summed over its entries
  std::int64_t entries = 0;  ///< timed entries of this kind

  friend bool operator==(const ExcludedTime&, const ExcludedTime&) = default;
};

/// A whole-run summary, where the file has one instead of (or beside) step
/// records: the Trainer's train_results.json and final log_history entry,
/// MLPerf's run_start / run_stop.
struct ImportedSummary {
  std::optional<double> runtimeSeconds;
  std::optional<double> samplesPerSecond;  ///< whole job
  std::optional<double> stepsPerSecond;
  std::optional<ScopedRate> tokensPerSecond;
  std::optional<double> totalFlos;           ///< floating-point operations of the whole run
  std::optional<double> loss;                ///< the run's mean training loss
  std::optional<double> timeToTrainSeconds;  ///< MLPerf: run_start to run_stop
  /// What the file timed inside runtimeSeconds that was not training; the
  /// rates above are the file's, over the whole runtime.
  std::vector<ExcludedTime> excluded;

  friend bool operator==(const ImportedSummary&, const ImportedSummary&) = default;
};

/// One imported run. `steps` holds the records kept for curves: all of them
/// up to a bound, evenly thinned beyond it (a multi-gigabyte log must not
/// fill memory); `records` counts every record read.
struct ImportedRun {
  std::string source;            ///< the file or folder read
  std::string format;            ///< "megatron", "torchtitan", … (tb::logs::formatName)
  std::string framework;         ///< "Megatron-LM", …
  std::string frameworkVersion;  ///< where the file shows it, else empty
  std::vector<ImportedStep> steps;
  std::int64_t records = 0;
  std::optional<std::int64_t> firstStep;
  std::optional<std::int64_t> lastStep;
  std::optional<ImportedSummary> summary;
  std::optional<int> worldSize;                ///< GPUs (ranks) of the job, where the file says
  std::optional<std::int64_t> globalBatch;     ///< samples per optimizer step
  std::optional<std::int64_t> sequenceLength;  ///< tokens per sample
  std::optional<std::int64_t> plannedSteps;    ///< the run's target step count, where the file says
  std::string memoryKind;     ///< what memoryBytes is: "max_allocated", "max_reserved", …
  bool partial = false;       ///< the file ends mid-run: truncated, killed, or still going
  std::string partialReason;  ///< why it counts as partial

  friend bool operator==(const ImportedRun&, const ImportedRun&) = default;
};

}  // namespace tb::runs
