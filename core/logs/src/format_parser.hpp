// The seam between the importer and one format's parser. A line format is
// fed cleaned lines one at a time and hands each training record to a sink
// as it reads it (the sink keeps what a curve needs and the medians' inputs,
// in bounded memory); a document format (JSON, CSV, event files) reads its
// whole input, through the same sink. Neither keeps the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/logs/log_import.hpp"
#include "tb/runs/imported_run.hpp"

namespace tb::logs::detail {

/// Where parsers put the records they read, in file order.
class StepSink {
 public:
  virtual ~StepSink() = default;
  virtual void add(const runs::ImportedStep& step) = 0;
};

/// A format read line by line.
class LineFormat {
 public:
  virtual ~LineFormat() = default;
  /// A copy of everything read so far: a following import finishes the copy
  /// and feeds the original on.
  [[nodiscard]] virtual std::unique_ptr<LineFormat> clone() const = 0;
  /// One cleaned line (log_text.hpp's cleanLine). A line of another logger
  /// is ignored (ok); a line of this format that cannot be read is an Error
  /// of kind Parse whose message names `origin:lineNumber` and what was
  /// expected.
  virtual Status feed(std::string_view line, std::uint64_t lineNumber, StepSink& sink) = 0;
  /// After the last line: the run's metadata (world size, batch, sequence
  /// length, planned steps, version, summary, partial) go into `run`; its
  /// steps, records, first and last step are the sink's. `endedMidLine`
  /// says the file stopped without a final newline (a run still writing);
  /// that cut line was not fed: every line feed() saw is whole. Records
  /// the format still holds go to `sink` (a clone's own, where a copy is
  /// finished).
  virtual Status finish(runs::ImportedRun& run, bool endedMidLine, StepSink& sink) = 0;
  /// After finish(): what the file held that the format read but does not
  /// import, and why (MLPerf's tracked_stats throughput, whose units are
  /// the benchmark's). They join the import's hints.
  [[nodiscard]] virtual std::vector<std::string> notes() const { return {}; }
  /// The step of the last line of this format read, where the format holds
  /// records back (a training script's loss line belongs to it); empty: the
  /// newest record handed to the sink is that step.
  [[nodiscard]] virtual std::optional<std::int64_t> lastPrintedStep() const { return std::nullopt; }
};

/// Everything the importer needs to know about one format.
struct FormatSpec {
  Format format;
  std::string_view name;       ///< as formatName spells it
  std::string_view framework;  ///< "Megatron-LM", …
  /// The warm-up the framework itself discounts, the default when
  /// --skip-first is not given: records whose step is at most this are left
  /// out of the medians (DeepSpeed's ThroughputTimer times global steps from
  /// its start_step = 2 on, so steps 1 and 2 are warm-up, whatever
  /// steps_per_print). Empty: the framework discounts nothing.
  std::optional<std::int64_t> skipStepsUpTo = std::nullopt;
  /// The framework prints no loss: the training script's own loss lines
  /// (`Loss: X`, script_loss.hpp) are read beside its lines.
  bool readsScriptLoss = false;
  /// Line formats: does this cleaned line belong to this format and no other
  /// (detection reads lines until one format claims one)?
  bool (*claimsLine)(std::string_view cleanedLine) = nullptr;
  std::unique_ptr<LineFormat> (*makeLineFormat)(std::string_view origin) = nullptr;
  /// Document formats: does the start of the file (up to 64 KiB) look like
  /// this format? Then read the whole input.
  bool (*claimsHead)(std::string_view head) = nullptr;
  Status (*readDocument)(const std::filesystem::path& path, runs::ImportedRun& run,
                         StepSink& sink) = nullptr;
};

/// One entry per format, in detection order (formats.cpp).
[[nodiscard]] const FormatSpec& formatSpec(Format format);

// Each format's file defines its spec's functions.
[[nodiscard]] bool megatronClaimsLine(std::string_view line);
[[nodiscard]] bool megatronDeepSpeedClaimsLine(std::string_view line);
[[nodiscard]] std::unique_ptr<LineFormat> makeMegatronFormat(std::string_view origin);
[[nodiscard]] std::unique_ptr<LineFormat> makeMegatronDeepSpeedFormat(std::string_view origin);
[[nodiscard]] bool deepSpeedClaimsLine(std::string_view line);
[[nodiscard]] std::unique_ptr<LineFormat> makeDeepSpeedFormat(std::string_view origin);
[[nodiscard]] bool torchtitanClaimsLine(std::string_view line);
[[nodiscard]] std::unique_ptr<LineFormat> makeTorchtitanFormat(std::string_view origin);
[[nodiscard]] bool nemoClaimsLine(std::string_view line);
[[nodiscard]] std::unique_ptr<LineFormat> makeNemoFormat(std::string_view origin);
[[nodiscard]] bool mlperfClaimsLine(std::string_view line);
[[nodiscard]] std::unique_ptr<LineFormat> makeMlperfFormat(std::string_view origin);
[[nodiscard]] bool lightningCsvClaimsLine(std::string_view line);
[[nodiscard]] std::unique_ptr<LineFormat> makeLightningCsvFormat(std::string_view origin);
[[nodiscard]] bool hfTrainerClaimsHead(std::string_view head);
Status readHfTrainer(const std::filesystem::path& path, runs::ImportedRun& run, StepSink& sink);
[[nodiscard]] bool tensorboardClaimsHead(std::string_view head);
Status readTensorboard(const std::filesystem::path& path, runs::ImportedRun& run, StepSink& sink);

}  // namespace tb::logs::detail
