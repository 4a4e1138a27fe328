// The sink every parser writes into, and what the importer computes from it.
// A 1 GiB log holds millions of records, so nothing here grows with the file:
// the curve keeps at most kMaxKeptSteps records, evenly thinned, and each
// median's input is exact up to MedianInput::kExactLimit values and a
// log-bucketed histogram beyond.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format_parser.hpp"
#include "tb/logs/log_import.hpp"
#include "tb/runs/imported_run.hpp"

namespace tb::logs::detail {

/// The median of a stream of non-negative values in bounded memory. Exact
/// (tb::median) while it holds at most kExactLimit values; beyond that the
/// values move into a histogram of geometric buckets, each (1 + kBucketWidth)
/// times as wide as the one before, over [kLowest, kHighest]. A bucket's
/// value is its geometric midpoint, so the median is off by at most half a
/// bucket: sqrt(1.002) - 1 < 0.1 % relative. Buckets rather than a sketch
/// (P², t-digest) because their error bound holds for any input order, the
/// even-count midpoint rule of tb::median carries over, and the whole range
/// (1e-12 to 1e18 covers seconds, samples/s, tokens/s, TFLOP/s and fractions)
/// fits in 34,574 counters (270 KiB). Values outside the range count in the
/// edge bucket; clamping to the exact minimum and maximum keeps a constant
/// series exact.
class MedianInput {
 public:
  static constexpr std::size_t kExactLimit = std::size_t{1} << 16;
  static constexpr double kBucketWidth = 0.002;
  static constexpr double kLowest = 1e-12;
  static constexpr double kHighest = 1e18;

  /// NaN, infinities and negative values are no measurement and are left out.
  void add(double value);
  [[nodiscard]] std::optional<double> median() const;
  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
  [[nodiscard]] bool isExact() const noexcept { return buckets_.empty(); }
  [[nodiscard]] std::size_t retainedBytes() const noexcept;

 private:
  void moveToBuckets();
  [[nodiscard]] double valueAtRank(std::uint64_t rank) const;

  std::vector<double> exact_;
  std::vector<std::uint64_t> buckets_;
  std::uint64_t zeros_ = 0;  ///< histogram mode: zero has no logarithm
  std::uint64_t count_ = 0;
  double min_ = 0.0;
  double max_ = 0.0;
};

/// The per-record quantities a median is taken of. Where a record carries
/// its own global batch, samples/s and step time are derived from each other
/// per record (Megatron's batch ramp-up); the inverses let a run-level factor
/// known only at the end (--global-batch, the file's world size) turn a
/// median of one quantity into the exact median of another, since scaling by
/// a positive constant commutes with the median.
enum class MedianSeries : std::uint8_t {
  StepTime,
  InverseStepTime,
  SamplesJob,
  InverseSamplesJob,
  SamplesPerGpu,
  TokensPerGpu,
  InverseTokensPerGpu,
  TokensJob,
  TflopsPerGpu,
  Mfu,
  BenchmarkThroughput,
};
inline constexpr std::size_t kMedianSeriesCount = 11;

/// Which fields any record carried (warm-up records included).
struct FieldsSeen {
  bool loss = false;
  bool learningRate = false;
  bool gradNorm = false;
  bool stepTime = false;
  bool samplesPerSecond = false;
  bool tokensPerSecond = false;
  bool tflopsPerGpu = false;
  bool mfu = false;
  bool memory = false;
  bool globalBatch = false;
  bool benchmarkThroughput = false;
};

/// What the medians leave out as warm-up: the first `records` records
/// (--skip-first N counts records), or, where `stepsUpTo` is given, the
/// records whose step is at most that (the framework's own rule, a
/// FormatSpec's skipStepsUpTo).
struct WarmUp {
  int records = 0;
  std::optional<std::int64_t> stepsUpTo;
};

class StepCollector final : public StepSink {
 public:
  static constexpr std::size_t kMaxKeptSteps = 4096;

  /// Records before `skipFirst` count and join the curve but not the medians.
  explicit StepCollector(int skipFirst) : StepCollector(WarmUp{skipFirst, std::nullopt}) {}
  /// Warm-up records count and join the curve but not the medians.
  explicit StepCollector(const WarmUp& warmUp);

  void add(const runs::ImportedStep& step) override;

  /// Puts the curve (kept records in file order, ending with the last record
  /// read, and the last one with a loss before it when that one was thinned
  /// out), the record count and the first and last step into `run`.
  void moveInto(runs::ImportedRun& run);

  [[nodiscard]] std::int64_t records() const noexcept { return records_; }
  [[nodiscard]] const WarmUp& warmUp() const noexcept { return warmUp_; }
  /// Warm-up records actually left out (fewer when the file had fewer).
  [[nodiscard]] int skippedRecords() const noexcept { return skippedRecords_; }
  [[nodiscard]] const FieldsSeen& seen() const noexcept { return seen_; }
  /// The largest memoryBytes of any record.
  [[nodiscard]] std::optional<double> peakMemoryBytes() const noexcept { return peakMemory_; }
  [[nodiscard]] const MedianInput& series(MedianSeries which) const noexcept {
    return series_[static_cast<std::size_t>(which)];
  }
  /// The step distance between the last two records (the logging interval
  /// at the end of the run), where there are two.
  [[nodiscard]] std::optional<std::int64_t> lastInterval() const noexcept {
    if (!last_ || !previousStep_) return std::nullopt;
    return last_->step - *previousStep_;
  }
  /// Every kept step is `stride()` records after the one before.
  [[nodiscard]] std::int64_t stride() const noexcept { return stride_; }
  [[nodiscard]] std::size_t keptSteps() const noexcept { return kept_.size(); }
  /// What the collector holds in memory, for the bounded-memory rule.
  [[nodiscard]] std::size_t retainedBytes() const noexcept;

 private:
  void keepForCurve(const runs::ImportedStep& step);
  void addToMedians(const runs::ImportedStep& step);
  void addSeries(MedianSeries which, double value) {
    series_[static_cast<std::size_t>(which)].add(value);
  }

  WarmUp warmUp_;
  int skippedRecords_ = 0;
  std::int64_t records_ = 0;
  std::int64_t stride_ = 1;
  std::vector<runs::ImportedStep> kept_;
  std::int64_t lastKeptIndex_ = -1;
  std::optional<runs::ImportedStep> first_;
  std::optional<runs::ImportedStep> last_;
  std::optional<std::int64_t> previousStep_;
  std::optional<runs::ImportedStep> lastWithLoss_;
  std::optional<double> peakMemory_;
  std::int64_t lastWithLossIndex_ = -1;
  FieldsSeen seen_;
  std::array<MedianInput, kMedianSeriesCount> series_;
};

/// What turns one median into another: the job's GPUs, tokens per sample,
/// samples per step (the options over the file's own values).
struct MedianFactors {
  std::optional<int> gpus;
  std::optional<std::int64_t> sequenceLength;
  std::optional<std::int64_t> globalBatch;
};

struct DerivedMedians {
  ImportMedians medians;
  /// What would complete an empty median: "tokens_per_s_per_gpu needs --seq".
  std::vector<std::string> hints;
  /// Seconds of the summary's runtime that were not training and were left
  /// out of its rates, and their kinds ("eval", "predict"); empty when
  /// nothing was subtracted.
  std::optional<double> excludedSeconds;
  std::vector<std::string> excludedKinds;
};

/// The medians over the records after the warm-up, each from the first rule
/// whose inputs are there (the file's own value before a derived one, a
/// record series before the run summary); a value no rule gives stays empty,
/// with a hint naming the options that would give it.
[[nodiscard]] DerivedMedians deriveMedians(const StepCollector& collector,
                                           const std::optional<runs::ImportedSummary>& summary,
                                           const MedianFactors& factors);

/// The field names (JSON spelling) neither the records, the summary nor the
/// run's metadata carried. Call it before options are laid over the run.
/// The field names (JSON style) the file had, and those it did not.
struct FieldLists {
  std::vector<std::string> found;
  std::vector<std::string> missing;
};
[[nodiscard]] FieldLists fieldLists(const StepCollector& collector, const runs::ImportedRun& run);

[[nodiscard]] std::vector<std::string> missingFields(const StepCollector& collector,
                                                     const runs::ImportedRun& run);

}  // namespace tb::logs::detail
