// The collector behind every import, and the medians taken from it.
//
// Curve: record i is kept when i is a multiple of the stride; when the kept
// list is full, every other kept record goes and the stride doubles, so the
// kept records stay evenly spaced (record indices 0, k, 2k, …) at any file
// size. Medians: one MedianInput per quantity (step_collector.hpp says why a
// log-bucketed histogram past 65,536 values). Ten inputs at their largest
// (512 KiB exact, 270 KiB bucketed) plus the curve (4,096 records of about
// 200 bytes) stay under 6 MiB, far inside the 64 MiB the importer may use.
#include "step_collector.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <span>
#include <string_view>

#include "excluded_time.hpp"
#include "tb/common/statistics.hpp"
#include "tb/common/text.hpp"

namespace tb::logs::detail {
namespace {

double bucketLogWidth() {
  static const double width = std::log1p(MedianInput::kBucketWidth);
  return width;
}

std::size_t bucketCount() {
  static const auto count = static_cast<std::size_t>(
      std::ceil(std::log(MedianInput::kHighest / MedianInput::kLowest) / bucketLogWidth()));
  return count;
}

std::size_t bucketOf(double value) {
  const double position = std::floor(std::log(value / MedianInput::kLowest) / bucketLogWidth());
  if (!(position > 0.0)) return 0;  // at or below kLowest: the edge bucket
  return static_cast<std::size_t>(std::min(position, static_cast<double>(bucketCount() - 1)));
}

bool positive(double value) { return std::isfinite(value) && value > 0.0; }

}  // namespace

// --- MedianInput ------------------------------------------------------------

void MedianInput::add(double value) {
  if (!std::isfinite(value) || value < 0.0) return;
  if (count_ == 0) {
    min_ = value;
    max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  ++count_;
  if (isExact()) {
    exact_.push_back(value);
    if (exact_.size() > kExactLimit) moveToBuckets();
    return;
  }
  if (value == 0.0) ++zeros_;
  else ++buckets_[bucketOf(value)];
}

void MedianInput::moveToBuckets() {
  buckets_.assign(bucketCount(), 0);
  for (const double value : exact_) {
    if (value == 0.0) ++zeros_;
    else ++buckets_[bucketOf(value)];
  }
  std::vector<double>().swap(exact_);  // give the memory back, not just the size
}

double MedianInput::valueAtRank(std::uint64_t rank) const {
  if (rank < zeros_) return 0.0;
  rank -= zeros_;
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (rank < seen) {
      const double middle = kLowest * std::exp((static_cast<double>(i) + 0.5) * bucketLogWidth());
      return std::clamp(middle, min_, max_);
    }
  }
  return max_;
}

std::optional<double> MedianInput::median() const {
  if (count_ == 0) return std::nullopt;
  if (isExact()) return tb::median(std::span<const double>(exact_));
  // tb::median's rule: the middle value, or the mean of the two middle ones.
  return (valueAtRank((count_ - 1) / 2) + valueAtRank(count_ / 2)) / 2.0;
}

std::size_t MedianInput::retainedBytes() const noexcept {
  return sizeof(*this) + exact_.capacity() * sizeof(double) +
         buckets_.capacity() * sizeof(std::uint64_t);
}

// --- StepCollector ----------------------------------------------------------

StepCollector::StepCollector(const WarmUp& warmUp) : warmUp_(warmUp) {
  warmUp_.records = std::max(0, warmUp_.records);
  kept_.reserve(kMaxKeptSteps);
}

void StepCollector::add(const runs::ImportedStep& step) {
  const std::int64_t index = records_++;
  if (!first_) first_ = step;
  if (last_) previousStep_ = last_->step;
  last_ = step;
  if (step.loss) {
    lastWithLoss_ = step;
    lastWithLossIndex_ = index;
  }
  seen_.loss |= step.loss.has_value();
  seen_.learningRate |= step.learningRate.has_value();
  seen_.gradNorm |= step.gradNorm.has_value();
  seen_.stepTime |= step.stepTimeSeconds.has_value();
  seen_.samplesPerSecond |= step.samplesPerSecond.has_value();
  seen_.tokensPerSecond |= step.tokensPerSecond.has_value();
  seen_.tflopsPerGpu |= step.tflopsPerGpu.has_value();
  seen_.mfu |= step.mfu.has_value();
  seen_.memory |= step.memoryBytes.has_value();
  if (step.memoryBytes && (!peakMemory_ || *step.memoryBytes > *peakMemory_)) {
    peakMemory_ = step.memoryBytes;
  }
  seen_.globalBatch |= step.globalBatch.has_value();
  seen_.benchmarkThroughput |= step.benchmarkThroughput.has_value();

  if (index % stride_ == 0) keepForCurve(step);
  const bool warmUp = warmUp_.stepsUpTo ? step.step <= *warmUp_.stepsUpTo : index < warmUp_.records;
  if (!warmUp) {
    addToMedians(step);
  } else if (skippedRecords_ < std::numeric_limits<int>::max()) {
    ++skippedRecords_;
  }
}

void StepCollector::keepForCurve(const runs::ImportedStep& step) {
  kept_.push_back(step);
  // Two places stay free for the last record and the last one with a loss,
  // which moveInto adds when thinning left them out.
  if (kept_.size() + 2 <= kMaxKeptSteps) {
    lastKeptIndex_ = static_cast<std::int64_t>(kept_.size() - 1) * stride_;
    return;
  }
  std::size_t out = 0;
  for (std::size_t in = 0; in < kept_.size(); in += 2) kept_[out++] = kept_[in];
  kept_.resize(out);
  stride_ *= 2;
  lastKeptIndex_ = static_cast<std::int64_t>(kept_.size() - 1) * stride_;
}

void StepCollector::addToMedians(const runs::ImportedStep& step) {
  // A plain number (0: none) rather than an optional: GCC 12 reports the
  // optional's value as "maybe uninitialized" in the arithmetic below.
  const double batch = static_cast<double>(std::max<std::int64_t>(step.globalBatch.value_or(0), 0));
  std::optional<double> stepTime;
  if (step.stepTimeSeconds && positive(*step.stepTimeSeconds)) stepTime = *step.stepTimeSeconds;
  std::optional<double> samplesJob;
  std::optional<double> samplesPerGpu;
  if (step.samplesPerSecond && positive(step.samplesPerSecond->value)) {
    if (step.samplesPerSecond->scope == runs::RateScope::Job)
      samplesJob = step.samplesPerSecond->value;
    else samplesPerGpu = step.samplesPerSecond->value;
  }
  // The record's own batch links its step time and its samples/s; a value
  // the record printed is never replaced by one derived from the other.
  if (batch > 0 && stepTime && !samplesJob) {
    samplesJob = batch / *stepTime;
  } else if (batch > 0 && samplesJob && !stepTime) {
    stepTime = batch / *samplesJob;
  }

  if (stepTime) {
    addSeries(MedianSeries::StepTime, *stepTime);
    addSeries(MedianSeries::InverseStepTime, 1.0 / *stepTime);
  }
  if (samplesJob) {
    addSeries(MedianSeries::SamplesJob, *samplesJob);
    addSeries(MedianSeries::InverseSamplesJob, 1.0 / *samplesJob);
  }
  if (samplesPerGpu) addSeries(MedianSeries::SamplesPerGpu, *samplesPerGpu);
  if (step.tokensPerSecond && positive(step.tokensPerSecond->value)) {
    if (step.tokensPerSecond->scope == runs::RateScope::PerGpu) {
      addSeries(MedianSeries::TokensPerGpu, step.tokensPerSecond->value);
      addSeries(MedianSeries::InverseTokensPerGpu, 1.0 / step.tokensPerSecond->value);
    } else {
      addSeries(MedianSeries::TokensJob, step.tokensPerSecond->value);
    }
  }
  if (step.tflopsPerGpu) addSeries(MedianSeries::TflopsPerGpu, *step.tflopsPerGpu);
  if (step.mfu) addSeries(MedianSeries::Mfu, *step.mfu);
  if (step.benchmarkThroughput && positive(*step.benchmarkThroughput))
    addSeries(MedianSeries::BenchmarkThroughput, *step.benchmarkThroughput);
}

void StepCollector::moveInto(runs::ImportedRun& run) {
  run.records = records_;
  run.firstStep = first_ ? std::optional<std::int64_t>(first_->step) : std::nullopt;
  run.lastStep = last_ ? std::optional<std::int64_t>(last_->step) : std::nullopt;
  const std::int64_t lastIndex = records_ - 1;
  if (lastWithLoss_ && lastWithLossIndex_ > lastKeptIndex_ && lastWithLossIndex_ != lastIndex)
    kept_.push_back(*lastWithLoss_);
  if (last_ && lastIndex > lastKeptIndex_) kept_.push_back(*last_);
  run.steps = std::move(kept_);
  kept_ = {};
}

std::size_t StepCollector::retainedBytes() const noexcept {
  std::size_t bytes = sizeof(*this) + kept_.capacity() * sizeof(runs::ImportedStep);
  for (const MedianInput& input : series_) bytes += input.retainedBytes() - sizeof(MedianInput);
  return bytes;
}

// --- Medians ----------------------------------------------------------------

namespace {

// value = base × gpus^g × seq^s × batch^b; a rule whose base is there but a
// factor is not names the options it waits for.
struct Rule {
  std::optional<double> base;
  int gpus = 0;
  int seq = 0;
  int batch = 0;
};

struct Factors {
  std::optional<double> gpus;
  std::optional<double> seq;
  std::optional<double> batch;
};

double scaled(double value, const std::optional<double>& factor, int power) {
  for (int i = 0; i < power; ++i) value *= *factor;
  for (int i = 0; i > power; --i) value /= *factor;
  return value;
}

std::optional<double> firstRule(std::string_view field, std::initializer_list<Rule> rules,
                                const Factors& factors, std::vector<std::string>& hints) {
  std::vector<std::string> firstNeeds;
  for (const Rule& rule : rules) {
    if (!rule.base) continue;
    std::vector<std::string> needs;
    if (rule.gpus != 0 && !factors.gpus) needs.emplace_back("--gpus");
    if (rule.seq != 0 && !factors.seq) needs.emplace_back("--seq");
    if (rule.batch != 0 && !factors.batch) needs.emplace_back("--global-batch");
    if (needs.empty()) {
      double value = *rule.base;
      value = scaled(value, factors.gpus, rule.gpus);
      value = scaled(value, factors.seq, rule.seq);
      value = scaled(value, factors.batch, rule.batch);
      return value;
    }
    if (firstNeeds.empty()) firstNeeds = std::move(needs);
  }
  if (!firstNeeds.empty()) {
    std::string hint(field);
    hint += " needs ";
    for (std::size_t i = 0; i < firstNeeds.size(); ++i) {
      if (i > 0) hint += i + 1 == firstNeeds.size() ? " and " : ", ";
      hint += firstNeeds[i];
    }
    hints.push_back(std::move(hint));
  }
  return std::nullopt;
}

std::optional<double> positiveOrNone(const std::optional<double>& value) {
  return value && positive(*value) ? value : std::nullopt;
}

std::optional<double> inverse(const std::optional<double>& value) {
  return value && positive(*value) ? std::optional<double>(1.0 / *value) : std::nullopt;
}

std::string seconds(double value) { return formatDecimal(std::round(value * 10.0) / 10.0) + " s"; }

std::string describeExcluded(const std::vector<runs::ExcludedTime>& excluded) {
  std::vector<std::string> parts;
  for (const runs::ExcludedTime& entry : excluded) {
    parts.push_back(seconds(entry.seconds) + " of " + entry.kind + " (" +
                    std::to_string(entry.entries) + (entry.entries == 1 ? " entry)" : " entries)"));
  }
  return joinList(parts, ", ");
}

/// What the summary's rates are multiplied by to count training time only:
/// runtime / (runtime - what the file timed as not training). 1 when nothing
/// is subtracted; the hints say which, and why.
double trainingTimeFactor(const runs::ImportedSummary& summary, DerivedMedians& out) {
  if (summary.excluded.empty() || !summary.runtimeSeconds || !positive(*summary.runtimeSeconds))
    return 1.0;
  const double runtime = *summary.runtimeSeconds;
  const double excluded = totalSeconds(summary.excluded);
  if (excluded >= runtime) {
    out.hints.push_back("the non-training runtimes before the summary (" +
                        describeExcluded(summary.excluded) + ") add up to " + seconds(excluded) +
                        ", not less than the summary's runtime of " + seconds(runtime) +
                        ": they cannot all lie inside it (a resumed run?), so nothing is "
                        "subtracted and the rates are whole-run averages");
    return 1.0;
  }
  out.excludedSeconds = excluded;
  for (const runs::ExcludedTime& entry : summary.excluded) out.excludedKinds.push_back(entry.kind);
  out.hints.push_back("the summary's runtime of " + seconds(runtime) + " holds " +
                      describeExcluded(summary.excluded) +
                      ", left out: throughput and step time are over the " +
                      seconds(runtime - excluded) + " of training");
  return runtime / (runtime - excluded);
}

}  // namespace

DerivedMedians deriveMedians(const StepCollector& collector,
                             const std::optional<runs::ImportedSummary>& summary,
                             const MedianFactors& factors) {
  const auto med = [&](MedianSeries which) { return collector.series(which).median(); };
  Factors f;
  if (factors.gpus && *factors.gpus > 0) f.gpus = static_cast<double>(*factors.gpus);
  if (factors.sequenceLength && *factors.sequenceLength > 0)
    f.seq = static_cast<double>(*factors.sequenceLength);
  if (factors.globalBatch && *factors.globalBatch > 0)
    f.batch = static_cast<double>(*factors.globalBatch);

  // The run summary (the Trainer's final entry) is the last resort of each
  // median: a whole-run average, eval and checkpointing included.
  std::optional<double> summarySteps;
  std::optional<double> summarySamples;
  std::optional<double> summaryTokensPerGpu;
  std::optional<double> summaryTokensJob;
  std::optional<double> summaryFlopsRate;  // TFLOP/s of the whole job
  DerivedMedians out;
  auto& hints = out.hints;
  if (summary) {
    // Every summary rate is a count over the runtime: over training time
    // only, each grows by the same factor.
    const double factor = trainingTimeFactor(*summary, out);
    const auto training = [factor](const std::optional<double>& rate) {
      return rate ? std::optional<double>(*rate * factor) : std::nullopt;
    };
    summarySteps = training(positiveOrNone(summary->stepsPerSecond));
    summarySamples = training(positiveOrNone(summary->samplesPerSecond));
    if (summary->tokensPerSecond && positive(summary->tokensPerSecond->value)) {
      const double tokens = summary->tokensPerSecond->value * factor;
      if (summary->tokensPerSecond->scope == runs::RateScope::PerGpu) summaryTokensPerGpu = tokens;
      else summaryTokensJob = tokens;
    }
    if (summary->totalFlos && summary->runtimeSeconds && positive(*summary->totalFlos) &&
        positive(*summary->runtimeSeconds))
      summaryFlopsRate = *summary->totalFlos / *summary->runtimeSeconds / 1e12 * factor;
    const FieldsSeen& seen = collector.seen();
    if ((summarySteps || summarySamples) && !seen.stepTime && !seen.samplesPerSecond &&
        !seen.tokensPerSecond)
      hints.emplace_back(
          "the rates are the summary's, over its whole runtime: time the file does not time "
          "(checkpoint saving, the loop's start-up) stays inside them");
  }

  ImportMedians& m = out.medians;
  m.stepTimeSeconds = firstRule("step_time_s",
                                {{med(MedianSeries::StepTime)},
                                 {med(MedianSeries::InverseSamplesJob), 0, 0, 1},
                                 {med(MedianSeries::InverseTokensPerGpu), -1, 1, 1},
                                 {inverse(summarySteps)}},
                                f, hints);
  m.samplesPerSecond = firstRule("samples_per_s",
                                 {{med(MedianSeries::SamplesJob)},
                                  {med(MedianSeries::SamplesPerGpu), 1, 0, 0},
                                  {med(MedianSeries::InverseStepTime), 0, 0, 1},
                                  {med(MedianSeries::TokensJob), 0, -1, 0},
                                  {med(MedianSeries::TokensPerGpu), 1, -1, 0},
                                  {summarySamples}},
                                 f, hints);
  m.tokensPerSecondPerGpu = firstRule("tokens_per_s_per_gpu",
                                      {{med(MedianSeries::TokensPerGpu)},
                                       {med(MedianSeries::TokensJob), -1, 0, 0},
                                       {med(MedianSeries::SamplesJob), -1, 1, 0},
                                       {med(MedianSeries::SamplesPerGpu), 0, 1, 0},
                                       {med(MedianSeries::InverseStepTime), -1, 1, 1},
                                       {summaryTokensPerGpu},
                                       {summaryTokensJob, -1, 0, 0},
                                       {summarySamples, -1, 1, 0}},
                                      f, hints);
  m.tflopsPerGpu =
      firstRule("tflops_per_gpu", {{med(MedianSeries::TflopsPerGpu)}, {summaryFlopsRate, -1, 0, 0}},
                f, hints);
  m.mfu = med(MedianSeries::Mfu);
  m.benchmarkThroughput = med(MedianSeries::BenchmarkThroughput);

  if (collector.records() > 0 && collector.skippedRecords() == collector.records()) {
    const WarmUp& warmUp = collector.warmUp();
    if (warmUp.stepsUpTo) {
      hints.push_back("all " + std::to_string(collector.records()) +
                      " records are warm-up (steps up to " + std::to_string(*warmUp.stepsUpTo) +
                      ", which the framework itself leaves out): --skip-first 0 keeps them");
    } else {
      hints.push_back("all " + std::to_string(collector.records()) +
                      " records are warm-up under --skip-first " + std::to_string(warmUp.records) +
                      ": a smaller --skip-first leaves some for the medians");
    }
  }
  return out;
}

std::vector<std::string> missingFields(const StepCollector& collector,
                                       const runs::ImportedRun& run) {
  return fieldLists(collector, run).missing;
}

FieldLists fieldLists(const StepCollector& collector, const runs::ImportedRun& run) {
  const FieldsSeen& seen = collector.seen();
  const runs::ImportedSummary none;
  const runs::ImportedSummary& summary = run.summary ? *run.summary : none;
  FieldLists lists;
  const auto check = [&](bool present, const char* name) {
    (present ? lists.found : lists.missing).emplace_back(name);
  };
  check(seen.loss || summary.loss.has_value(), "loss");
  check(seen.learningRate, "learning_rate");
  check(seen.gradNorm, "grad_norm");
  check(seen.stepTime || summary.stepsPerSecond.has_value(), "step_time_s");
  check(seen.samplesPerSecond || summary.samplesPerSecond.has_value(), "samples_per_s");
  check(seen.tokensPerSecond || summary.tokensPerSecond.has_value(), "tokens_per_s");
  check(seen.tflopsPerGpu, "tflops_per_gpu");
  check(seen.mfu, "mfu");
  check(seen.memory, "memory");
  check(run.worldSize.has_value(), "world_size");
  check(seen.globalBatch || run.globalBatch.has_value(), "global_batch");
  check(run.sequenceLength.has_value(), "sequence_length");
  // Only MLPerf has it: found where present, never listed as missing.
  if (seen.benchmarkThroughput) lists.found.emplace_back("benchmark_throughput");
  return lists;
}

}  // namespace tb::logs::detail
