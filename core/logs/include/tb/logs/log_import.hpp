// Reading what real training frameworks write into imported runs: the format
// is detected from the content (never the file name), the file is read as a
// stream (memory stays flat on a multi-gigabyte log), and a file in no known
// format, a binary file or a corrupt record is refused with the file, the
// line or byte offset and what was expected. Facts about every format are in
// docs/LOG_FORMATS.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/runs/imported_run.hpp"

namespace tb::logs {

/// Every format the importer reads; formatName gives the CLI's spelling.
enum class Format : std::uint8_t {
  HfTrainer,          ///< trainer_state.json, train_results.json, all_results.json
  Megatron,           ///< Megatron-LM's `iteration N/ M | …` console lines
  MegatronDeepSpeed,  ///< the DeepSpeed fork of Megatron (tgs, TFLOPs)
  DeepSpeed,          ///< the DeepSpeed engine's ThroughputTimer and step lines
  Torchtitan,         ///< torchtitan's `step: N  loss: …` console lines
  LightningCsv,       ///< Lightning's CSVLogger metrics.csv
  Nemo,               ///< NeMo 2's console line and DLLogger `DLLL {json}` lines
  Mlperf,             ///< `:::MLLOG {json}` lines
  Tensorboard,        ///< events.out.tfevents.* files, or a folder of them
};

[[nodiscard]] std::string_view formatName(Format format);
[[nodiscard]] std::optional<Format> formatFromName(std::string_view name);
[[nodiscard]] const std::vector<Format>& allFormats();

/// What the caller knows that the file may not say. A value given here wins
/// over the file's own.
struct ImportOptions {
  std::optional<Format> format;                ///< --format: no detection
  std::optional<int> gpus;                     ///< --gpus
  std::optional<std::int64_t> sequenceLength;  ///< --seq
  std::optional<std::int64_t> globalBatch;     ///< --global-batch
  std::optional<int> skipFirst;                ///< --skip-first; default: what the framework skips
  /// --loss-pattern: the loss read from the lines it matches, in every text
  /// format (tb/logs/loss_pattern.hpp says what it takes).
  std::optional<std::string> lossPattern;
};

/// Medians over the step records after the warm-up ones; a value that cannot
/// be derived from the file and the options is empty, never guessed.
struct ImportMedians {
  std::optional<double> stepTimeSeconds;
  std::optional<double> samplesPerSecond;  ///< whole job
  std::optional<double> tokensPerSecondPerGpu;
  std::optional<double> tflopsPerGpu;
  std::optional<double> mfu;  ///< fraction
  /// MLPerf tracked_stats throughput, in the benchmark's own unit.
  std::optional<double> benchmarkThroughput;
};

struct ImportedLog {
  runs::ImportedRun run;
  ImportMedians medians;
  int skippedRecords = 0;  ///< warm-up records left out of the medians
  /// The largest per-GPU memory any record reported (warm-up included: a
  /// peak is a peak), of the kind run.memoryKind names.
  std::optional<double> peakMemoryBytes;
  std::vector<std::string> found;  ///< field names the file had ("loss", "tokens_per_s", …)
  std::vector<std::string>
      missing;  ///< field names the file did not have ("mfu", "sequence_length", …)
  /// What would complete a value ("tokens_per_s_per_gpu needs --seq"), and
  /// what the file held that is not imported or kept apart, and why
  /// ("tracked_stats throughput is kept as benchmark_throughput, in the
  /// benchmark's own unit", skipped over-long lines).
  std::vector<std::string> hints;
  /// Seconds the file timed as not training (the Trainer's in-loop
  /// evaluation and prediction) that were left out of the time the medians
  /// are over, and their kinds; empty when nothing was left out.
  std::optional<double> excludedSeconds;
  std::vector<std::string> excludedKinds;
};

/// Which format a file or folder holds, from its content.
[[nodiscard]] Expected<Format> detectFormat(const std::filesystem::path& path);

/// Reads one file, or a folder (TensorBoard event files, or the one log a
/// framework's output folder holds), into an imported run with its medians.
[[nodiscard]] Expected<ImportedLog> importLog(const std::filesystem::path& path,
                                              const ImportOptions& options = {});

}  // namespace tb::logs
