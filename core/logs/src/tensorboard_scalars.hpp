// The scalars of TensorBoard event files we read: which tags (of
// torchtitan, Megatron-LM, the Trainer and NeMo) become which ImportedStep
// field, and a summary value's number in either form TensorBoard writes
// (`simple_value`, or a one-element tensor). tensorboard.cpp reads the files.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "tensorboard_event.pb.h"

namespace tb::logs::detail::tensorboard {

// ---------------------------------------------------------------------------
// Which tags we read, and into what.

enum class Target : std::uint8_t {
  Loss,
  LearningRate,
  GradNorm,
  StepTimeSeconds,
  TokensPerSecondPerGpu,
  TflopsPerGpu,
  MfuPercent,
  MemoryMaxReservedGiB,
  MemoryMaxAllocatedBytes,
  GlobalBatch,
  // Run-level values: not a step's.
  WorldSize,
  RunRuntimeSeconds,
  RunSamplesPerSecond,
  RunStepsPerSecond,
  RunTotalFlos,
  RunLoss,
};

inline constexpr std::string_view kTorchtitan = "torchtitan";
inline constexpr std::string_view kMegatron = "Megatron-LM";
inline constexpr std::string_view kTrainer = "Hugging Face Trainer";
inline constexpr std::string_view kNemo = "NeMo";

struct KnownTag {
  std::string_view tag;
  Target target;
  /// The writer whose name this is (as formats.cpp names the frameworks),
  /// empty where two share it; the run is credited to the one writer seen.
  std::string_view framework;
  /// torchtitan's TensorBoardLogger puts an optional `<tag>/` before every
  /// metric name; these also match with one leading folder.
  bool prefixable = false;
};

// One table for every writer; tags do not collide across frameworks, and
// where two share a name (`grad_norm`) they mean the same.
inline constexpr std::array kKnownTags{
    // torchtitan, components/metrics.py MetricsProcessor.log: per device.
    KnownTag{"loss_metrics/global_avg_loss", Target::Loss, kTorchtitan, true},
    KnownTag{"grad_norm", Target::GradNorm, {}, true},
    KnownTag{"throughput(tps)", Target::TokensPerSecondPerGpu, kTorchtitan, true},
    // The name before tps (2024-11), by the console line's rename.
    KnownTag{"wps", Target::TokensPerSecondPerGpu, kTorchtitan, true},
    KnownTag{"tflops", Target::TflopsPerGpu, kTorchtitan, true},
    KnownTag{"mfu(%)", Target::MfuPercent, kTorchtitan, true},
    KnownTag{"memory/max_reserved(GiB)", Target::MemoryMaxReservedGiB, kTorchtitan, true},
    KnownTag{"time_metrics/end_to_end(s)", Target::StepTimeSeconds, kTorchtitan, true},
    // Megatron-LM, training.py training_log: iteration-time in seconds,
    // throughput in TFLOP/s per GPU; the `… vs samples` twins count samples,
    // not steps, and are left out on purpose.
    KnownTag{"lm loss", Target::Loss, kMegatron},
    KnownTag{"iteration-time", Target::StepTimeSeconds, kMegatron},
    KnownTag{"throughput", Target::TflopsPerGpu, kMegatron},
    KnownTag{"learning-rate", Target::LearningRate, kMegatron},
    KnownTag{"grad-norm", Target::GradNorm, kMegatron},
    KnownTag{"batch-size", Target::GlobalBatch, kMegatron},
    KnownTag{"world-size", Target::WorldSize, kMegatron},
    KnownTag{"mem-max-allocated-bytes", Target::MemoryMaxAllocatedBytes, kMegatron},
    // The Trainer's TensorBoardCallback (rewrite_logs: `train/` before each
    // training key); the final summary arrives at the last global step.
    KnownTag{"train/loss", Target::Loss, kTrainer},
    KnownTag{"train/learning_rate", Target::LearningRate, kTrainer},
    KnownTag{"train/grad_norm", Target::GradNorm, kTrainer},
    KnownTag{"train/train_runtime", Target::RunRuntimeSeconds, kTrainer},
    KnownTag{"train/train_samples_per_second", Target::RunSamplesPerSecond, kTrainer},
    KnownTag{"train/train_steps_per_second", Target::RunStepsPerSecond, kTrainer},
    KnownTag{"train/total_flos", Target::RunTotalFlos, kTrainer},
    KnownTag{"train/train_loss", Target::RunLoss, kTrainer},
    // NeMo through Lightning's TensorBoardLogger.
    KnownTag{"reduced_train_loss", Target::Loss, kNemo},
    KnownTag{"lr", Target::LearningRate, kNemo},
    KnownTag{"train_step_timing in s", Target::StepTimeSeconds, kNemo},
    KnownTag{"train_step_timing", Target::StepTimeSeconds, kNemo},
    KnownTag{"global_batch_size", Target::GlobalBatch, kNemo},
    KnownTag{"tokens_per_sec_per_gpu", Target::TokensPerSecondPerGpu, kNemo},
    KnownTag{"tflops_per_sec_per_gpu", Target::TflopsPerGpu, kNemo},
};

/// The table's entry for `tag` (a torchtitan tag may carry one folder).
[[nodiscard]] std::optional<std::size_t> lookupTag(std::string_view tag);

enum class TagPlugin : std::uint8_t { Unknown, Scalars, Other };

/// TensorFlow 2 writes a summary's metadata on a tag's first value only, so
/// a tag's plugin is remembered from the value that carried it.
void rememberPlugin(const tfevents::Summary::Value& value, TagPlugin& plugin);

/// The number a summary value holds, if it is a scalar of ours.
[[nodiscard]] std::optional<double> scalarOf(const tfevents::Summary::Value& value,
                                             TagPlugin plugin);

}  // namespace tb::logs::detail::tensorboard
